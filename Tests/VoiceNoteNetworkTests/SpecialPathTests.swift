#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import VoiceNoteCore
@testable import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport

/// Paths the network module opens that someone else may have made into a FIFO (a shared cache directory, a CA
/// file): every one goes through the checked open, so nothing waits for a writer, least of all the one network
/// thread every transfer of the process shares.
@Suite struct SpecialPathTests {
    @Test func aFIFOUnderACacheEntrysNameIsNoEntry() throws {
        let (cache, server, contents) = try MediaCacheTests.setUp(files: 1)
        let url = server.url("/range/f0.bin")
        try FileSystem.makeDirectories(cache.directory)
        let fifo = MediaCacheTests.entryPath(cache, url)
        #expect(mkfifo(fifo, 0o600) == 0)
        let outcome = Locked<[UInt8]?>(nil)
        Thread { outcome.withLock { $0 = (try? MediaCacheTests.fetch(url, cache))?.1 } }.start()
        #expect(eventually(seconds: 10) { outcome.withLock { $0 } != nil }, "the lookup waited on the FIFO")
        #expect(outcome.withLock { $0 } == contents[0])
        if outcome.withLock({ $0 }) == nil {  // unblock the stuck lookup so the test process can end
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
    }

    @Test func aCAFileThatIsAFIFOIsRefusedAndBlocksNoOtherTransfer() throws {
        let directory = try Fixtures.temporaryDirectory()
        let fifo = directory + "/ca.pem"
        #expect(mkfifo(fifo, 0o600) == 0)
        var options = HTTPOptions()
        #expect(throws: VoiceNoteError(.invalidArgument, "\(fifo) is a FIFO, not a regular file")) { try options.setCAFile(fifo) }
        // Named while it was a file, then replaced by a FIFO: the transfer fails at once, and others go on.
        let pem = directory + "/later.pem"
        _ = FileManager.default.createFile(atPath: pem, contents: Data("not a certificate".utf8))
        try options.setCAFile(pem)
        try FileManager.default.removeItem(atPath: pem)
        #expect(mkfifo(pem, 0o600) == 0)
        let (cache, server, contents) = try MediaCacheTests.setUp(files: 1)
        let failing = try URLSource(url: server.url("/range/f0.bin").replacingOccurrences(of: "http:", with: "https:"), options: options)
        let plain = try RemoteMedia.open(url: server.url("/range/f0.bin"), cache: cache)
        #expect(try plain.readAll() == contents[0])
        #expect(throws: VoiceNoteError.self) { _ = try failing.readAll() }
        #expect(failing.size == nil)
        let writer = open(pem, O_WRONLY | O_NONBLOCK)  // in case it blocked after all
        if writer >= 0 { close(writer) }
    }
}
