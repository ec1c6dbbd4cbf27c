import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// docs/recorder.md, "why nothing captured is lost": what is on disk while recording decodes, a pause makes the take whole on
/// disk, and a full disk or file-size limit stops the take with `.noSpace` keeping what fitted.
@Suite struct RecordingCrashSafetyTests {
    typealias Kit = RecordingTestKit

    /// 20 ms device periods.
    static func periods(_ frames: Int) -> [Int] { Array(repeating: 960, count: frames / 960) }

    /// The bytes on disk now, copied to a new file: what a SIGKILL (which runs no finish) would leave.
    static func snapshot(_ path: String, as name: String) throws -> String {
        try writeTemporary(name, bytes(of: path))
    }

    @Test func opusOnDiskWhileRecordingDecodesToWithinHalfASecond() throws {
        let input = Array(try Kit.speech().prefix(5 * 48_000))
        let path = try Fixtures.temporaryDirectory() + "/take.ogg.part"
        let encoder = try RecordingEncoders.create(.opus, path: path, inputRate: 48_000, channels: 1, settings: EncoderSettings())
        var lastGrowth = (size: Int64(0), frames: 0)
        var longestWait = 0
        try Kit.feed(encoder, input, chunks: Self.periods(input.count)) { frames in
            let onDisk = try FileSource(path: path).size ?? -1
            #expect(onDisk == encoder.bytesWritten)
            if onDisk > lastGrowth.size {
                longestWait = max(longestWait, frames - lastGrowth.frames)
                lastGrowth = (onDisk, frames)
            }
        }
        longestWait = max(longestWait, input.count - lastGrowth.frames)
        print("measured: Opus file grew at least every \(Double(longestWait) / 48) ms of captured audio")
        #expect(longestWait <= 24_000 + 2 * 960)

        let killed = try Kit.decodeForPlayback(Self.snapshot(path, as: "killed.ogg"))
        print("measured: Opus killed after 5 s keeps \(Double(killed.samples.count) / 48_000) s")
        #expect(killed.samples.count >= 4 * 48_000)

        try encoder.flush()
        let paused = try Self.snapshot(path, as: "paused.ogg")
        let pausedAudio = try Kit.decodeForPlayback(paused)
        print("measured: Opus after flush keeps \(Double(pausedAudio.samples.count) / 48_000) s of 5 s")
        #expect(pausedAudio.samples.count >= input.count - 40 * 48)

        // Resuming after the pause continues the same stream; the paused file is a prefix of the finished one.
        try Kit.feed(encoder, input, chunks: Self.periods(input.count))
        try encoder.finish()
        let finished = try bytes(of: path)
        #expect(finished.starts(with: try bytes(of: paused)))
        #expect(try Kit.decodeForPlayback(path).samples.count == 2 * input.count)
    }

    @Test func aacOnDiskWhileRecordingDecodesToWithinHalfASecond() throws {
        let input = Array(try Kit.speech().prefix(5 * 48_000))
        let path = try Fixtures.temporaryDirectory() + "/take.aac.part"
        let encoder = try RecordingEncoders.create(.aac, path: path, inputRate: 48_000, channels: 1, settings: EncoderSettings())
        try Kit.feed(encoder, input, chunks: Self.periods(input.count))
        let killed = try Fixtures.referencePCM(Self.snapshot(path, as: "killed.aac"), rate: 48_000, channels: 1)
        print("measured: AAC killed after 5 s keeps \(Double(killed.count) / 48_000) s (priming included)")
        #expect(killed.count >= input.count - 24_000)

        try encoder.flush()
        let paused = try Fixtures.referencePCM(Self.snapshot(path, as: "paused.aac"), rate: 48_000, channels: 1)
        print("measured: AAC after flush keeps \(Double(paused.count) / 48_000) s (priming included)")
        #expect(paused.count >= input.count - 24_000)
        try encoder.finish()
        #expect(try Fixtures.referencePCM(path, rate: 48_000, channels: 1).count >= input.count)
    }

    /// Checks a take that stopped on a full disk: whole pages or frames, a proper end, audio that decodes.
    static func expectValidPrefix(_ path: String, format: RecordingFormat) throws {
        let data = try bytes(of: path)
        #expect(data.count > 0 && data.count <= 64 * 1024)
        switch format {
        case .opus:
            let pages = Kit.pageMap(data)
            #expect(pages.last.map { $0.offset + $0.length } == data.count)
            #expect(pages.last.map { $0.page.flags & 0x04 != 0 } == true)
            #expect(OggPage.parse(data).flatMap(\.bytes) == data)  // every CRC right
            let decoded = try Kit.decodeForPlayback(path)
            print("measured: Opus take on a full 64 KiB disk keeps \(Double(decoded.samples.count) / 48_000) s")
            #expect(decoded.samples.count > 5 * 48_000)
        case .aac:
            let frames = Kit.adtsFrames(data)
            #expect(frames.last.map { $0.offset + $0.length } == data.count)
            let decoded = try Fixtures.referencePCM(path, rate: 48_000, channels: 1)
            print("measured: AAC take on a full 64 KiB disk keeps \(Double(decoded.count) / 48_000) s")
            #expect(decoded.count > 5 * 48_000)
        }
    }

    /// Encodes 40 s in 20 ms periods into `path` in a child process limited to 64 KiB files; 0 when the take
    /// stopped with `.noSpace` and finished cleanly.
    static func encodeUnderFileSizeLimit(_ format: RecordingFormat, path: String, input: [Int16]) throws -> Int32 {
        // Run the whole path once here first, so the child needs no lazy runtime setup another thread might hold.
        _ = try Kit.encodeFile(Array(input.prefix(48_000)), format: format)
        let warm = try Fixtures.temporaryDirectory() + "/warm"
        let encoder = try RecordingEncoders.create(format, path: warm, inputRate: 48_000, channels: 1, settings: EncoderSettings())
        try Kit.feed(encoder, Array(input.prefix(9600)), chunks: periods(9600))
        try encoder.finish()
        return Kit.inChildWithFileSizeLimit(64 * 1024) {
            do {
                let encoder = try RecordingEncoders.create(format, path: path, inputRate: 48_000, channels: 1, settings: EncoderSettings())
                do {
                    try Kit.feed(encoder, input, chunks: periods(input.count))
                    return 3  // never stopped
                } catch let error as VoiceNoteError {
                    guard error.status == .noSpace else { return 4 }
                    guard (try? input.withUnsafeBufferPointer { try encoder.write($0) }) == nil else { return 5 }
                    try encoder.finish()
                    return 0
                }
            } catch {
                return 6
            }
        }
    }

    @Test(arguments: RecordingFormat.allCases)
    func fullDiskStopsWithNoSpaceAndKeepsWhatFitted(format: RecordingFormat) throws {
        let input = Kit.looped(try Kit.speech(), seconds: 40)
        let kept = try Fixtures.temporaryDirectory() + "/kept.\(format.fileExtension)"
        let mounted: Bool? = try Kit.withTinyFileSystem { directory in
            let path = directory + "/take.\(format.fileExtension).part"
            let encoder = try RecordingEncoders.create(format, path: path, inputRate: 48_000, channels: 1, settings: EncoderSettings())
            var failure: Status?
            do {
                try Kit.feed(encoder, input, chunks: Self.periods(input.count))
            } catch let error as VoiceNoteError {
                failure = error.status
            }
            #expect(failure == .noSpace)
            #expect(encoder.framesWritten < Int64(input.count))
            // The take stays stopped: more input meets the same error, and nothing more is written.
            let size = encoder.bytesWritten
            #expect(status { try input.prefix(48_000).withUnsafeBufferPointer { try encoder.write($0) } } == .noSpace)
            #expect(status { try encoder.flush() } == .noSpace)
            try encoder.finish()
            #expect(encoder.bytesWritten == size)
            #expect(try FileSource(path: path).size == size)
            try FileManager.default.copyItem(atPath: path, toPath: kept)
            return true
        }
        if mounted == nil {
            // No mount allowed here: a file-size limit gives the same disk-full path (EFBIG).
            #expect(try Self.encodeUnderFileSizeLimit(format, path: kept, input: input) == 0)
        }
        try Self.expectValidPrefix(kept, format: format)
    }
}
