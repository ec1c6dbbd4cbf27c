import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteSources
import VoiceNoteTestSupport

/// NoteConverter: notes written again as recordings, at 1x and at other speeds with the pitch kept; lengths and
/// tones checked against FFmpeg's decoding of the output (a reference outside the library).
@Suite struct NoteConverterTests {
    /// Writes a sine as a WAV file through FFmpeg (another encoder than ours) and returns its path.
    func toneFile(_ frequency: Double, seconds: Double, channels: Int = 1) throws -> String {
        let path = try Fixtures.temporaryDirectory() + "/tone-\(Int(frequency))-\(channels).wav"
        _ = try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                              "sine=frequency=\(Int(frequency)):sample_rate=48000:duration=\(seconds)",
                              "-ac", String(channels), path])
        return path
    }

    func seconds(_ path: String) throws -> Double {
        Double(try Fixtures.referencePCM(path, rate: 48_000, channels: 1).count) / 48_000
    }

    @Test(arguments: [Fixtures.Kind.mp3, .m4a, .opus, .flac])
    func everyFormatBecomesAnOpusNoteOfTheSameLength(_ kind: Fixtures.Kind) throws {
        let output = try Fixtures.temporaryDirectory() + "/\(kind.rawValue).converted.ogg"
        let duration = try NoteConverter.convert(try FileSource(path: Fixtures.path(kind)), to: output)
        let original = try seconds(Fixtures.path(kind))
        #expect(abs(duration - original) < 0.03, "\(kind): \(duration) s written, \(original) s read")
        #expect(abs(try seconds(output) - original) < 0.03)
        #expect(try Decoders.info(of: FileSource(path: output)).codec == "opus")
    }

    @Test(arguments: [2.0, 0.5, 1.5])
    func aRateChangesTheLengthAndKeepsThePitch(_ rate: Double) throws {
        let input = try toneFile(440, seconds: 4)
        let output = try Fixtures.temporaryDirectory() + "/tone-at-\(rate).ogg"
        let duration = try NoteConverter.convert(try FileSource(path: input), to: output,
                                                 options: .init(rate: try PlaybackRate(rate)))
        #expect(abs(duration - 4 / rate) <= 0.02 * 4 / rate, "\(duration) s at \(rate)x")
        let heard = try Fixtures.referencePCM(output, rate: 48_000, channels: 1)
        let middle = heard[heard.count / 4 ..< heard.count * 3 / 4]
        #expect(abs(Signal.zeroCrossingFrequency(middle) - 440) < 5)
    }

    @Test func aacIsWrittenWhenAsked() throws {
        let output = try Fixtures.temporaryDirectory() + "/speech.converted.aac"
        let duration = try NoteConverter.convert(try FileSource(path: Fixtures.path(.opus)), to: output,
                                                 options: .init(rate: try PlaybackRate(2), format: .aac))
        #expect(try Decoders.info(of: FileSource(path: output)).codec == "aac")
        #expect(abs(duration - (try seconds(Fixtures.path(.opus))) / 2) < 0.1)
    }

    @Test func moreThanTwoChannelsAreMixedToMono() throws {
        let input = try toneFile(300, seconds: 1, channels: 6)
        let output = try Fixtures.temporaryDirectory() + "/six.ogg"
        try NoteConverter.convert(try FileSource(path: input), to: output)
        let info = try Decoders.info(of: FileSource(path: output))
        #expect(info.channels == 1)
        let heard = try Fixtures.referencePCM(output, rate: 48_000, channels: 1)
        #expect(abs(Signal.zeroCrossingFrequency(heard[4800 ..< 43_200]) - 300) < 5)
    }

    @Test func aFileThatIsNotAudioFailsAndLeavesTheDestinationAlone() throws {
        let directory = try Fixtures.temporaryDirectory()
        let bogus = directory + "/bogus.ogg", output = directory + "/kept.ogg"
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: bogus))
        try Data("the old file".utf8).write(to: URL(fileURLWithPath: output))
        #expect(throws: VoiceNoteError.self) { try NoteConverter.convert(try FileSource(path: bogus), to: output) }
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "the old file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["bogus.ogg", "kept.ogg"])
    }

    @Test func aMissingFolderIsNotFoundAndANoteMayBeConvertedInPlace() throws {
        let missing = try Fixtures.temporaryDirectory() + "/no/such/folder/out.ogg"
        do {
            try NoteConverter.convert(try FileSource(path: Fixtures.path(.opus)), to: missing)
            Issue.record("converted into a missing folder")
        } catch let error as VoiceNoteError {
            #expect(error.status == .notFound)
        }
        let copy = try Fixtures.temporaryDirectory() + "/in-place.ogg"
        try FileManager.default.copyItem(atPath: Fixtures.path(.mp3), toPath: copy)
        let duration = try NoteConverter.convert(try FileSource(path: copy), to: copy, options: .init(rate: try PlaybackRate(2)))
        #expect(try Decoders.info(of: FileSource(path: copy)).codec == "opus")
        #expect(abs(duration - (try seconds(Fixtures.path(.mp3))) / 2) < 0.1)
    }
}
