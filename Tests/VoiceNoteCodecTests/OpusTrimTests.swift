import Foundation
import Testing
@testable import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport

/// Trimming an Ogg Opus take without re-encoding: the result decodes to exactly the range, its audio is the
/// original's there, and the reference tools accept it.
@Suite struct OpusTrimTests {
    /// A 4 s sweep encoded by opusenc (its own pre-skip of 312 samples), and its decoded samples.
    static func sweep(_ name: String) throws -> (path: String, samples: [Int16]) {
        let directory = try Fixtures.temporaryDirectory()
        let wav = directory + "/sweep.wav", path = directory + "/" + name
        try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "4", "sine", "200-2000", "vol", "0.5"])
        try Fixtures.run(["opusenc", "--quiet", "--bitrate", "48", wav, path])
        return (path, try decodeAll(Decoders.open(FileSource(path: path), purpose: .playback)))
    }

    /// Signal-to-noise ratio in dB of `trimmed` against `reference`.
    static func snr(_ trimmed: ArraySlice<Int16>, _ reference: ArraySlice<Int16>) -> Double {
        var signal = 0.0, noise = 0.0
        for (a, b) in zip(trimmed, reference) {
            signal += Double(b) * Double(b)
            noise += (Double(a) - Double(b)) * (Double(a) - Double(b))
        }
        return 10 * log10(signal / max(noise, 1))
    }

    @Test(arguments: [(1.0, 2.5), (0, 1.2345), (1.01234, 4.0), (2.98765, 3.0), (0, 4.0)])
    func aTrimDecodesToExactlyTheRangeWithTheOriginalsAudio(start: Double, end: Double) throws {
        let (path, original) = try Self.sweep("take.ogg")
        let kept = try OpusTrim.trim(path, start: start, end: end)
        let first = Int((start * 48_000).rounded()), last = Int((end * 48_000).rounded())
        #expect(kept == Int64(last - first))
        let trimmed = try decodeAll(Decoders.open(FileSource(path: path), purpose: .playback))
        #expect(trimmed.count == last - first, "decoded \(trimmed.count) samples, want \(last - first)")
        let info = try Decoders.info(of: FileSource(path: path))
        #expect(Int((info.duration * 48_000).rounded()) == last - first && !info.durationIsEstimate)
        // Past the first 20 ms (the decoder converging over the pre-roll) the audio is the original's (a range of a
        // few ms is compared over what there is, where convergence shows more).
        let settle = min(960, trimmed.count / 2)
        let snr = Self.snr(trimmed[settle...], original[(first + settle)..<last])
        #expect(snr > (trimmed.count > 4800 ? 30 : 20), "SNR \(snr) dB against the original's range")
        // The reference tools take it.
        try Fixtures.run(["opusinfo", path])
        let byFFmpeg = try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-"]).count / 2
        #expect(byFFmpeg == last - first, "ffmpeg decodes \(byFFmpeg) samples")
        let folder = (path as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasSuffix(".new") })
    }

    @Test func aBadRangeLeavesTheTakeUntouched() throws {
        let (path, _) = try Self.sweep("kept.ogg")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for (start, end) in [(2.0, 1.0), (0, 4.5), (-1, 1), (.nan, 1), (1, .infinity), (1, 1)] {
            #expect(throws: VoiceNoteError.self, "\(start)…\(end)") { try OpusTrim.trim(path, start: start, end: end) }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(throws: VoiceNoteError.self) { try OpusTrim.trim(path + ".missing", start: 0, end: 1) }
    }

    @Test func trimmingTwiceKeepsCutting() throws {
        let (path, original) = try Self.sweep("twice.ogg")
        try OpusTrim.trim(path, start: 0.5, end: 3.5)
        try OpusTrim.trim(path, start: 1, end: 2)  // of the trimmed take: 1.5…2.5 s of the original
        let trimmed = try decodeAll(Decoders.open(FileSource(path: path), purpose: .playback))
        #expect(trimmed.count == 48_000)
        #expect(Self.snr(trimmed[960...], original[(72_000 + 960)..<120_000]) > 30)
    }
}
