import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport
import VoiceNoteWaveform

/// Loudness in the waveform's pass (`LoudnessMeter`) against libebur128's own measurement over FFmpeg's decode of the
/// same file (every sample, true peak included): within 0.1 LU for every format the decoders read.
@Suite struct LoudnessTests {
    /// libebur128 over every frame of `pcm` (`ReferenceLoudness`), as a `Loudness`.
    static func libebur128(_ pcm: [Int16], rate: Int, channels: Int) -> Loudness {
        let reference = ReferenceLoudness.measure(pcm, rate: rate, channels: channels)
        return Loudness(integrated: reference.integrated, range: reference.range, truePeak: reference.truePeak)
    }

    /// libebur128 over FFmpeg's decode of `path` at the rate and channels our analysis decoder gives.
    static func reference(_ path: String) throws -> (Loudness, rate: Int) {
        let decoder = try Decoders.open(FileSource(path: path), purpose: .analysis)
        let rate = decoder.outputRate, channels = decoder.outputChannels
        return (libebur128(try Fixtures.referencePCM(path, rate: rate, channels: channels), rate: rate, channels: channels), rate)
    }

    static func expectClose(_ ours: Loudness?, _ reference: Loudness, peakTolerance: Double = 0.1, rangeTolerance: Double = 0.1,
                            _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        guard let ours else {
            Issue.record("\(what): no loudness", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(ours.integrated - reference.integrated) <= 0.1, "\(what): \(ours) against \(reference)",
                sourceLocation: sourceLocation)
        #expect(abs(ours.range - reference.range) <= rangeTolerance, "\(what): \(ours) against \(reference)", sourceLocation: sourceLocation)
        #expect(abs(ours.truePeak - reference.truePeak) <= peakTolerance, "\(what): \(ours) against \(reference)",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: Fixtures.Kind.allCases)
    func everyFormatAgreesWithLibebur128OverFFmpegsDecode(_ kind: Fixtures.Kind) throws {
        let path = try Fixtures.path(kind)
        let result = try WaveformAnalysis.analyse(FileSource(path: path))
        let (reference, rate) = try Self.reference(path)
        Self.expectClose(result.loudness, reference, "\(kind) at \(rate) Hz")
        #expect(result.loudness?.isPlausible == true)
    }

    /// PCM made by sox at 48 kHz mono: `effects` after `-n`.
    static func synthesized(_ name: String, _ effects: [String], rate: Int = 48_000) throws -> [Int16] {
        let path = Fixtures.directory + "/loudness-\(name).wav"
        if !FileManager.default.fileExists(atPath: path) {
            try Fixtures.run(["sox", "-R", "-n", "-r", String(rate), "-c", "1", "-b", "16", path] + effects)
        }
        return try Fixtures.referencePCM(path, rate: rate, channels: 1)
    }

    /// Feeds `pcm` to a meter in pieces of varying size (as decoders hand them out).
    static func measured(_ pcm: [Int16], rate: Int = 48_000, channels: Int = 1) throws -> Loudness {
        let meter = try LoudnessMeter(sampleRate: rate, channels: channels)
        var generator = SplitMix(seed: 7)
        var start = 0
        pcm.withUnsafeBufferPointer { all in
            while start < all.count {
                let frames = Int(generator.next() % 2000) + 1
                let end = min(all.count, start + frames * channels)
                meter.append(UnsafeBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
        return meter.loudness
    }

    /// The true peak read only where it can be (`TruePeakScanner`) equals libebur128's over every sample: speech
    /// with quiet and loud stretches, a full-scale square wave (its true peak above 0 dBFS), noise that swells, a
    /// chord that fades, and a click in silence.
    @Test func theTruePeakEqualsLibebur128sOverEverySample() throws {
        let speech = try Fixtures.referencePCM(try Fixtures.path(.wav), rate: 48_000, channels: 1)
        let signals: [(String, [Int16])] = [
            ("speech", speech),
            ("speech, quiet then loud", speech.map { $0 / 8 } + speech),
            ("square", try Self.synthesized("square", ["synth", "3", "square", "997", "gain", "-n", "0"])),
            ("swelling noise", try Self.synthesized("noise", ["synth", "6", "pinknoise", "fade", "q", "5", "6", "0"])),
            ("fading chord", try Self.synthesized("chord", ["synth", "4", "pluck", "C4", "pluck", "E4", "pluck", "G4",
                                                            "fade", "0", "4", "3.9"])),
            ("click", [Int16](repeating: 0, count: 48_000) + [32767, -32768, 32767] + [Int16](repeating: 0, count: 48_000)),
        ]
        for (name, pcm) in signals {
            let ours = try Self.measured(pcm)
            let reference = Self.libebur128(pcm, rate: 48_000, channels: 1)
            #expect(abs(ours.truePeak - reference.truePeak) < 1e-9, "\(name): \(ours.truePeak) against \(reference.truePeak)")
            #expect(ours.integrated == reference.integrated || abs(ours.integrated - reference.integrated) < 1e-9, "\(name)")
            #expect(abs(ours.range - reference.range) < 1e-9, "\(name)")
        }
    }

    @Test func silenceIsSilentAndNoAudioIsNoError() throws {
        let silent = try Self.measured([Int16](repeating: 0, count: 96_000))
        #expect(silent == .silent)
        #expect(silent.isSilent && silent.isPlausible)
        let nearlySilent = try Self.measured((0..<96_000).map { Int16($0 % 2) })  // far below the −70 LUFS gate
        #expect(nearlySilent.isSilent)
        #expect(nearlySilent.truePeak < -80)
        let nothing = try LoudnessMeter(sampleRate: 16_000, channels: 2)
        #expect(nothing.loudness == .silent)
        let path = Fixtures.directory + "/loudness-silence.wav"
        try Fixtures.run(["sox", "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", path, "trim", "0", "2"])
        let analysed = try WaveformAnalysis.analyse(FileSource(path: path)).loudness
        #expect(analysed == .silent, "\(String(describing: analysed))")
    }

    @Test func outOfRangeParametersAreRefused() {
        #expect(throws: VoiceNoteError.self) { try LoudnessMeter(sampleRate: 8, channels: 1) }
        #expect(throws: VoiceNoteError.self) { try LoudnessMeter(sampleRate: 48_000, channels: 0) }
        #expect(throws: VoiceNoteError.self) { try LoudnessMeter(sampleRate: 48_000, channels: 65) }
        #expect(!Loudness(integrated: .nan, range: 0, truePeak: 0).isPlausible)
        #expect(!Loudness(integrated: -20, range: -1, truePeak: 0).isPlausible)
        #expect(!Loudness(integrated: -20, range: 3, truePeak: .infinity).isPlausible)
        #expect(Loudness(integrated: -20, range: 3, truePeak: -1).isPlausible)
    }

    /// A long file in ranges decoded in parallel: the ranges' gating blocks taken together give the one pass's
    /// integrated loudness and true peak within 0.1, its range within 0.3 LU (the 3 s windows across a cut are
    /// missing: at most 30 of the 400 in these 42 s).
    @Test(arguments: ["opus.ogg", "lame.mp3", "adts.aac"])
    func rangesDecodedInParallelGiveTheOnePassLoudness(_ kind: String) throws {
        let path = try WaveformRangesTests.longFile(kind)
        let onePass = try WaveformAnalysis.analyse(FileSource(path: path))
        let ranges = try WaveformAnalysis.analyse(FileSource(path: path), samples: 100, ranges: 4) { () throws(VoiceNoteError) in
            try FileSource(path: path)
        }
        #expect(ranges.ranges > 1)
        Self.expectClose(ranges.loudness, onePass.loudness ?? .silent, rangeTolerance: 0.3, "\(kind) in \(ranges.ranges) ranges")
    }
}
