import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport

/// The recording encoders on real speech: what they write decodes to what went in (docs/formats.md, docs/recorder.md).
@Suite struct RecordingEncoderTests {
    typealias Kit = RecordingTestKit

    @Test func opusDecodesToExactlyTheInputAndTheToolsAcceptIt() throws {
        let input = try Kit.speech()
        let path = try Fixtures.temporaryDirectory() + "/take.ogg"
        let encoder = try RecordingEncoders.create(.opus, path: path, inputRate: 48_000, channels: 1, settings: EncoderSettings())
        try Kit.feed(encoder, input, chunks: Kit.unevenChunks(total: input.count))
        try encoder.finish()
        #expect(encoder.framesWritten == Int64(input.count))
        let data = try bytes(of: path)
        #expect(encoder.bytesWritten == Int64(data.count))

        // Granule trimming makes the length exact at 48 kHz.
        let decoded = try Kit.decodeForPlayback(path)
        #expect(decoded.rate == 48_000 && decoded.channels == 1)
        #expect(decoded.samples.count == input.count)
        let aligned = Kit.alignedCorrelation(decoded.samples, input, maximumLag: 1000)
        #expect(aligned.correlation >= 0.9, "correlation \(aligned.correlation) at lag \(aligned.lag)")

        // The header keeps the real input rate; one EOS page, at the end; bitrate near the one asked.
        let pages = Kit.pageMap(data)
        try #require(pages.count > 3)
        let header = try pages[0].page.body.withUnsafeBytes { try OpusHeader(packet: $0) }
        #expect(header.inputSampleRate == 48_000 && header.channels == 1 && header.mappingFamily == 0)
        #expect(String(decoding: pages[1].page.body, as: UTF8.self).contains("ENCODER=voicenote"))
        #expect(pages.filter { $0.page.flags & 0x04 != 0 }.count == 1 && pages.last!.page.flags & 0x04 != 0)
        let audioBytes = pages.dropFirst(2).reduce(0) { $0 + $1.length }
        let bitrate = Double(audioBytes * 8) / (Double(input.count) / 48_000)
        print("measured: Opus speech at 32 kbit/s asked → \(Int(bitrate)) bit/s, \(data.count) bytes for \(Double(input.count) / 48_000) s")
        #expect(bitrate > 16_000 && bitrate < 48_000)

        // opus-tools agree.
        let info = String(decoding: try Fixtures.run(["opusinfo", path]), as: UTF8.self)
        #expect(!info.contains("WARNING") && !info.contains("ERROR"), "\(info)")
        #expect(info.contains("voicenote"))
        try Fixtures.run(["opusdec", "--quiet", path, Fixtures.temporaryDirectory() + "/out.wav"])
    }

    @Test func opusPagesAreClosedEveryHalfSecond() throws {
        let input = Kit.looped(try Kit.speech(), seconds: 12)
        let path = try Kit.encodeFile(input, format: .opus)
        let audio = Kit.pageMap(try bytes(of: path)).dropFirst(2).map(\.page.granule)
        let gaps = zip(audio.dropFirst(), audio).map { $0 - $1 }
        print("measured: Opus page spans \(gaps.min() ?? 0)...\(gaps.max() ?? 0) samples at 48 kHz over \(audio.count) pages")
        #expect((gaps.max() ?? .max) <= 24_000)
    }

    @Test(arguments: [44_100, 16_000])
    func opusAtAnotherRateKeepsDurationAndPitch(rate: Int) throws {
        let directory = try Fixtures.temporaryDirectory()
        // Speech resampled by sox: the duration survives to within one 20 ms frame.
        let speechPath = directory + "/speech-\(rate).wav"
        try Fixtures.run(["sox", "-R", Fixtures.path(.wav), "-r", String(rate), speechPath, "rate", "-v"])
        let speech = try Kit.wavSamples(speechPath)
        let encoded = try Kit.encodeFile(speech, format: .opus, rate: rate)
        let decoded = try Kit.decodeForPlayback(encoded)
        let inputSeconds = Double(speech.count) / Double(rate)
        let outputSeconds = Double(decoded.samples.count) / 48_000
        #expect(abs(outputSeconds - inputSeconds) <= 0.020, "in \(inputSeconds) s, out \(outputSeconds) s")
        let pages = Kit.pageMap(try bytes(of: encoded))
        let header = try pages[0].page.body.withUnsafeBytes { try OpusHeader(packet: $0) }
        #expect(header.inputSampleRate == rate)

        // A 1 kHz tone stays 1 kHz (a rate relabelled as 48 kHz would play it at 1088 or 3000 Hz).
        let tonePath = directory + "/tone-\(rate).wav"
        try Fixtures.run(["sox", "-R", "-n", "-r", String(rate), "-c", "1", "-b", "16", tonePath, "synth", "2", "sine", "1000", "gain", "-6"])
        let tone = try Kit.wavSamples(tonePath)
        let toneDecoded = try Kit.decodeForPlayback(try Kit.encodeFile(tone, format: .opus, rate: rate))
        let frequency = Kit.toneFrequency(toneDecoded.samples, rate: 48_000)
        #expect(abs(frequency - 1000) < 10, "\(frequency) Hz")
    }

    @Test func opusStereoKeepsItsChannels() throws {
        let mono = try Kit.speech()
        var stereo = [Int16](repeating: 0, count: mono.count * 2)
        for (index, sample) in mono.enumerated() {
            stereo[2 * index] = sample
            stereo[2 * index + 1] = sample / 2
        }
        let path = try Kit.encodeFile(stereo, format: .opus, channels: 2)
        let decoded = try Kit.decodeForPlayback(path)
        #expect(decoded.channels == 2 && decoded.samples.count == stereo.count)
    }

    @Test(arguments: [2.5, 10, 60])
    func opusFrameDurationsAreUsed(milliseconds: Double) throws {
        let input = try Kit.speech()
        let settings = EncoderSettings(bitrate: 48_000, complexity: 5, frameMilliseconds: milliseconds)
        let path = try Kit.encodeFile(input, format: .opus, settings: settings)
        // Packets end where a lacing value is under 255; each holds one frame of the asked duration.
        let audio = Kit.pageMap(try bytes(of: path)).dropFirst(2)
        let packets = audio.reduce(0) { $0 + $1.page.segments.filter { $0 < 255 }.count }
        let frame = Int(milliseconds * 48)
        #expect(packets == (input.count + 312 + frame - 1) / frame || packets == (input.count + 312) / frame + 1, "\(packets) packets")
        let decoded = try Kit.decodeForPlayback(path)
        #expect(decoded.samples.count == input.count)
        #expect(Kit.alignedCorrelation(decoded.samples, input, maximumLag: 1000).correlation >= 0.85)
    }

    @Test func aacIsADTSAndDecodesToTheInput() throws {
        let input = try Kit.speech()
        let path = try Fixtures.temporaryDirectory() + "/take.aac"
        let encoder = try RecordingEncoders.create(.aac, path: path, inputRate: 48_000, channels: 1, settings: EncoderSettings())
        try Kit.feed(encoder, input, chunks: Kit.unevenChunks(total: input.count))
        try encoder.finish()
        let data = try bytes(of: path)
        #expect(encoder.framesWritten == Int64(input.count) && encoder.bytesWritten == Int64(data.count))

        // Whole ADTS frames from the first byte to the last, with FFmpeg's own headers.
        let frames = Kit.adtsFrames(data)
        #expect(frames.last.map { $0.offset + $0.length } == data.count)
        let probe = String(decoding: try Fixtures.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", path]), as: UTF8.self)
        #expect(probe.contains("format_long_name=raw ADTS AAC"), "\(probe)")
        #expect(probe.contains("codec_name=aac") && probe.contains("profile=LC") && probe.contains("sample_rate=48000"))

        // Input length give or take one frame, plus the encoder's 1024-sample priming.
        let decoded = try Fixtures.referencePCM(path, rate: 48_000, channels: 1)
        print("measured: AAC \(frames.count) frames, decoded \(decoded.count) for \(input.count) input frames, \(Double(data.count * 8) / (Double(input.count) / 48_000)) bit/s")
        #expect(decoded.count >= input.count && decoded.count <= input.count + 1024 + 1024)
        let aligned = Kit.alignedCorrelation(decoded, input, maximumLag: 2048)
        #expect(aligned.correlation >= 0.9, "correlation \(aligned.correlation) at lag \(aligned.lag)")
    }

    /// 44.1 kHz is an AAC rate and is kept; 37.8 kHz is not, and becomes the next AAC rate up (44.1 kHz).
    @Test(arguments: [(44_100, 44_100), (37_800, 44_100), (16_000, 16_000)])
    func aacAtAnotherRateKeepsPitch(rate: Int, streamRate: Int) throws {
        let tonePath = try Fixtures.temporaryDirectory() + "/tone.wav"
        try Fixtures.run(["sox", "-R", "-n", "-r", String(rate), "-c", "1", "-b", "16", tonePath, "synth", "2", "sine", "1000", "gain", "-6"])
        let path = try Kit.encodeFile(try Kit.wavSamples(tonePath), format: .aac, rate: rate)
        let probe = String(decoding: try Fixtures.run(["ffprobe", "-v", "error", "-show_streams", path]), as: UTF8.self)
        #expect(probe.contains("sample_rate=\(streamRate)"))
        let decoded = try Fixtures.referencePCM(path, rate: 48_000, channels: 1)
        #expect(abs(Kit.toneFrequency(decoded, rate: 48_000) - 1000) < 10)
        // Two seconds, plus the 1024-sample priming and the last frame's padding at the stream's rate.
        let seconds = Double(decoded.count) / 48_000
        #expect(seconds >= 1.99 && seconds <= 2 + 2048 / Double(streamRate) + 0.01, "\(seconds) s")
    }

    @Test(arguments: RecordingFormat.allCases)
    func writeAfterFinishIsMisuseAndFinishIsIdempotent(format: RecordingFormat) throws {
        let path = try Fixtures.temporaryDirectory() + "/take.\(format.fileExtension)"
        let encoder = try RecordingEncoders.create(format, path: path, inputRate: 48_000, channels: 1, settings: EncoderSettings())
        let samples = [Int16](repeating: 100, count: 4800)
        try samples.withUnsafeBufferPointer { try encoder.write($0) }
        try encoder.finish()
        let size = try bytes(of: path).count
        try encoder.finish()
        #expect(status { try samples.withUnsafeBufferPointer { try encoder.write($0) } } == .misuse)
        #expect(status { try encoder.flush() } == .misuse)
        #expect(try bytes(of: path).count == size)
    }

    @Test(arguments: RecordingFormat.allCases)
    func emptyTakeFinishesIntoAPlayableFile(format: RecordingFormat) throws {
        let path = try Fixtures.temporaryDirectory() + "/empty.\(format.fileExtension)"
        let encoder = try RecordingEncoders.create(format, path: path, inputRate: 44_100, channels: 1, settings: EncoderSettings())
        try encoder.finish()
        #expect(encoder.framesWritten == 0)
        switch format {
        case .opus:
            #expect(try Kit.decodeForPlayback(path).samples.count <= 2)
            let info = String(decoding: try Fixtures.run(["opusinfo", path]), as: UTF8.self)
            #expect(!info.contains("WARNING") && !info.contains("ERROR"), "\(info)")
        case .aac:
            #expect(Kit.adtsFrames(try bytes(of: path)).count >= 1)
            #expect(try Fixtures.referencePCM(path, rate: 44_100, channels: 1).count <= 3 * 1024)
        }
    }

    @Test(arguments: RecordingFormat.allCases)
    func badArgumentsAreRefused(format: RecordingFormat) throws {
        let directory = try Fixtures.temporaryDirectory()
        func create(_ name: String = "x", rate: Int = 48_000, channels: Int = 1, settings: EncoderSettings = EncoderSettings()) -> Status? {
            status { _ = try RecordingEncoders.create(format, path: directory + "/" + name, inputRate: rate, channels: channels, settings: settings) }
        }
        #expect(create(channels: 3) == .invalidArgument)
        #expect(create(channels: 0) == .invalidArgument)
        #expect(create(rate: 0) == .invalidArgument)
        #expect(create(settings: EncoderSettings(bitrate: 10)) == .invalidArgument)
        if format == .opus {
            #expect(create(settings: EncoderSettings(complexity: 11)) == .invalidArgument)
            #expect(create(settings: EncoderSettings(frameMilliseconds: 30)) == .invalidArgument)
        }
        #expect(create("missing/take") == .notFound)
        try Data([1]).write(to: URL(fileURLWithPath: directory + "/exists"))
        #expect(create("exists") == .io)
        #expect(try bytes(of: directory + "/exists") == [1])
        // Nothing was left behind by the refused creations.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["exists"])

        let stereo = try RecordingEncoders.create(format, path: directory + "/stereo", inputRate: 48_000, channels: 2, settings: EncoderSettings())
        #expect(status { try [Int16](repeating: 0, count: 3).withUnsafeBufferPointer { try stereo.write($0) } } == .invalidArgument)
        try stereo.finish()
    }
}
