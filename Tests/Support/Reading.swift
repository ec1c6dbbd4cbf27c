import Foundation
import VoiceNoteCore
import VoiceNoteSources

extension ByteSource {
    /// Reads from the position to the end, in pieces of `pieceSize` bytes.
    public func readAll(pieceSize: Int = 32768) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: pieceSize)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try read(into: $0) }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }
}

/// The entry files (`*.vnc`) of a media cache directory; none when it does not exist.
public func cacheEntries(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".vnc") }.sorted()
}
