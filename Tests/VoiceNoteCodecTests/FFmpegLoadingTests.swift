import Foundation
import Testing
@testable import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// FFmpeg is opened on first use (ARCHITECTURE.md): Opus paths never ask for it, every other format does.
/// Other tests in this process load FFmpeg too, so "never asks" is counted on the test's own thread (a synchronous
/// test runs on one thread). The fresh-process check, with /proc/self/maps, is
/// bindings/python/tests/test_lazy_ffmpeg.py.
@Suite struct FFmpegLoadingTests {
    @Test func opusDecodingAndRecordingNeverAskForFFmpeg() throws {
        let opus = try Fixtures.path(.opus), chained = try Fixtures.path(.opusChained)
        let directory = try Fixtures.temporaryDirectory()
        let before = FFmpegLibraries.requestsOnThisThread

        #expect(try decodeAll(openFixture(.opus)).count > 0)                     // the analysis decoder
        #expect(try decodeAll(openFixture(.opus, purpose: .playback)).count > 0) // opusfile
        #expect(try decodeAll(Decoders.open(FileSource(path: chained))).count > 0)
        #expect(try Decoders.info(of: FileSource(path: opus)).codec == "opus")
        let encoder = try RecordingEncoders.create(.opus, path: directory + "/take.ogg", inputRate: 48_000, channels: 1,
                                                   settings: EncoderSettings())
        try [Int16](repeating: 0, count: 48_000).withUnsafeBufferPointer { samples throws(VoiceNoteError) in
            try encoder.write(samples)
        }
        try encoder.finish()

        #expect(FFmpegLibraries.requestsOnThisThread == before)
    }

    /// The control for the test above: the same count moves as soon as a non-Opus file is opened, and the load
    /// really maps FFmpeg's libraries (by the SONAMEs of the headers) into the process.
    @Test(arguments: [Fixtures.Kind.wav, .mp3, .vorbis])
    func otherFormatsLoadFFmpegFirst(kind: Fixtures.Kind) throws {
        let path = try Fixtures.path(kind)
        let before = FFmpegLibraries.requestsOnThisThread
        #expect(try decodeAll(Decoders.open(FileSource(path: path))).count > 0)
        #expect(FFmpegLibraries.requestsOnThisThread > before)
        #expect(FFmpegLibraries.isLoaded)
        let maps = try mappedFiles()
        for library in ["libavutil.so.", "libswresample.so.", "libavcodec.so.", "libavformat.so."] {
            #expect(maps.contains("/" + library), "\(library) is not mapped")
        }
    }

    @Test func anAACRecordingLoadsFFmpegFirst() throws {
        let before = FFmpegLibraries.requestsOnThisThread
        let encoder = try RecordingEncoders.create(.aac, path: try Fixtures.temporaryDirectory() + "/take.aac",
                                                   inputRate: 48_000, channels: 1, settings: EncoderSettings())
        try encoder.finish()
        #expect(FFmpegLibraries.requestsOnThisThread > before)
        _ = try ADTSStreamAnalyzer()
        #expect(FFmpegLibraries.requestsOnThisThread > before + 1)
    }
}

/// The text of /proc/self/maps, read to its end (its reported size is 0, so whole-file readers stop short).
private func mappedFiles() throws -> String {
    let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
    defer { try? file.close() }
    return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
}
