import Foundation
import Testing
import VoiceNoteCore
@testable import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport

/// The media cache on its own: entries kept whole under their key, the least recently used evicted first, damaged
/// or foreign entries never served, the limit, size and clear.
@Suite struct MediaCacheTests {
    /// A cache in a new directory, and a server over a directory holding `count` files of distinct bytes.
    static func setUp(files count: Int, size: Int = 30_000) throws -> (MediaCache, HTTPTestServer, [[UInt8]]) {
        let root = try Fixtures.temporaryDirectory()
        var contents: [[UInt8]] = []
        for index in 0..<count {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) }
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/f\(index).bin"))
            contents.append(bytes)
        }
        let cache = MediaCache()
        try cache.setDirectory(root + "/cache")
        return (cache, try HTTPTestServer(root: root), contents)
    }

    /// Downloads `url` through `cache` to its end; returns the source and its bytes.
    static func fetch(_ url: String, _ cache: MediaCache) throws -> (any ByteSource, [UInt8]) {
        let source = try RemoteMedia.open(url: url, cache: cache)
        return (source, try source.readAll())
    }

    static func entryCount(_ cache: MediaCache) -> Int {
        cacheEntries(in: cache.directory).count
    }

    @Test func theLeastRecentlyUsedEntryGoesFirst() throws {
        let (cache, server, contents) = try Self.setUp(files: 3)
        try cache.setLimit(70_000)  // room for two entries of 30 kB (and their headers)
        for index in 0..<2 {
            _ = try Self.fetch(server.url("/range/f\(index).bin"), cache)
            #expect(eventually(seconds: 10) { Self.entryCount(cache) == index + 1 })
        }
        // Both made long ago, f0 the earlier; a hit renews f0, so f1 is the least recently used when f2 comes in.
        for (index, age) in [(0, 7200.0), (1, 3600.0)] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)],
                                                  ofItemAtPath: Self.entryPath(cache, server.url("/range/f\(index).bin")))
        }
        let (hit, bytes) = try Self.fetch(server.url("/range/f0.bin"), cache)
        #expect(!(hit is URLSource) && bytes == contents[0])
        _ = try Self.fetch(server.url("/range/f2.bin"), cache)
        // Kept, then the eviction that follows the store (on the network thread) leaves two.
        #expect(eventually(seconds: 10) {
            FileManager.default.fileExists(atPath: Self.entryPath(cache, server.url("/range/f2.bin"))) && Self.entryCount(cache) == 2
        })
        #expect(try cache.size() <= 70_000)
        #expect(cache.source(for: server.url("/range/f1.bin"), name: "f1") == nil)
        #expect(cache.source(for: server.url("/range/f0.bin"), name: "f0") != nil)
        #expect(cache.source(for: server.url("/range/f2.bin"), name: "f2") != nil)
    }

    @Test func damagedOrForeignEntriesAreNeverServed() throws {
        let (cache, server, contents) = try Self.setUp(files: 1)
        let url = server.url("/range/f0.bin")
        _ = try Self.fetch(url, cache)
        #expect(eventually(seconds: 10) { Self.entryCount(cache) == 1 })
        let name = try FileManager.default.contentsOfDirectory(atPath: cache.directory).first { $0.hasSuffix(".vnc") }!
        let path = cache.directory + "/" + name
        // Cut short: not served, and downloaded again (then kept whole again).
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        #expect(cache.source(for: url, name: "f0") == nil)
        let (again, bytes) = try Self.fetch(url, cache)
        #expect(again is URLSource && bytes == contents[0])
        #expect(eventually(seconds: 10) { server.requests(to: "/range/f0.bin").count == 2 })
        // An entry copied to another key's file name names its own key: not served for the other.
        #expect(eventually(seconds: 10) { cache.source(for: url, name: "f0") != nil })
        try FileManager.default.copyItem(atPath: path, toPath: cache.directory + "/" + CacheEntry.fileName(for: "other"))
        #expect(cache.source(for: "other", name: "other") == nil)
    }

    /// The entry file of `key`.
    static func entryPath(_ cache: MediaCache, _ key: String) -> String {
        cache.directory + "/" + CacheEntry.fileName(for: key)
    }

    @Test func aLimitOfZeroTurnsTheCacheOffAndLargerMediaIsNotKept() throws {
        let (cache, server, _) = try Self.setUp(files: 3)
        try cache.setLimit(20_000)  // smaller than each file
        _ = try Self.fetch(server.url("/range/f0.bin"), cache)
        try cache.setLimit(0)
        _ = try Self.fetch(server.url("/range/f1.bin"), cache)
        // A third download with the cache on again: once it is kept, the two before it are known to be done.
        try cache.setLimit(MediaCache.defaultLimit)
        _ = try Self.fetch(server.url("/range/f2.bin"), cache)
        #expect(eventually(seconds: 10) { FileManager.default.fileExists(atPath: Self.entryPath(cache, server.url("/range/f2.bin"))) })
        #expect(cacheEntries(in: cache.directory) == [CacheEntry.fileName(for: server.url("/range/f2.bin"))])
        try cache.setLimit(0)
        #expect(throws: VoiceNoteError.self) { try cache.setLimit(-1) }
        #expect(throws: VoiceNoteError.self) { try cache.setDirectory("") }
        #expect(try cache.size() == 0)
    }
}
