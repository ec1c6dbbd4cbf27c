import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport

/// Every source keeps one read contract: a read returns data, or 0 only at the end; seeks move it; the sources
/// whose reads never wait ignore `cancel()`.
@Suite struct ReadContractTests {
    static let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// Reads everything in uneven pieces, checking that the position follows.
    static func readAll(_ source: ByteSource) throws -> [UInt8] {
        let all = try source.readAll(pieceSize: 777)
        #expect(source.position == Int64(all.count))
        return all
    }

    static func sources() throws -> [ByteSource] {
        let path = try Fixtures.temporaryDirectory() + "/bytes"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var offset = 0
        let callbacks = CallbackSource(name: "host", size: Int64(bytes.count), read: { buffer in
            let count = min(buffer.count, bytes.count - offset, 1000)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
            offset += count
            return count
        }, seek: { target in
            offset = Int(target)
            return target <= Int64(bytes.count)
        })
        return [try FileSource(path: path), MemorySource(bytes: bytes), callbacks]
    }

    @Test func everySourceReadsToItsEndAndSeeks() throws {
        for source in try Self.sources() {
            #expect(try Self.readAll(source) == Self.bytes, "\(source.name)")
            var buffer = [UInt8](repeating: 0, count: 10)
            #expect(try buffer.withUnsafeMutableBytes { try source.read(into: $0) } == 0, "\(source.name): end stays the end")
            try source.seek(to: 99_990)
            source.cancel()  // nothing waits in these sources: no effect
            #expect(try buffer.withUnsafeMutableBytes { try source.read(into: $0) } == 10)
            #expect(buffer == Array(Self.bytes.suffix(10)))
        }
    }

    @Test func aFailingHostReadIsAnIOErrorNotTheEnd() {
        let source = CallbackSource(name: "host", size: nil, read: { _ in -1 }, seek: nil)
        var buffer = [UInt8](repeating: 0, count: 10)
        #expect(throws: VoiceNoteError.self) { _ = try buffer.withUnsafeMutableBytes { try source.read(into: $0) } }
        #expect(throws: VoiceNoteError.self) { try source.seek(to: 0) }
    }
}
