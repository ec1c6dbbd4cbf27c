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

/// What a file speaker wrote, without the silence that completes the last period at an end of stream (the playback
/// thread pads a run whose frames end mid-period, as aplay does, so that rate plugins convert the last frames too):
/// the first `count` samples when the rest is at most `periodSamples` zeros, else everything written (so a
/// comparison with the input fails and shows it).
public func withoutEndPadding(_ written: [Int16], count: Int, periodSamples: Int) -> [Int16] {
    guard written.count >= count, written.count - count < periodSamples,
          written[count...].allSatisfy({ $0 == 0 }) else { return written }
    return Array(written.prefix(count))
}
