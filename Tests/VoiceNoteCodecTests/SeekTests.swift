import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport

/// Seeking a playback decoder: decoding from frame k gives the frames a full decode has from k on — exactly for
/// lossless formats and Opus positions, the audio itself within codec tolerance for lossy ones.
@Suite struct SeekTests {
    static func playback(_ kind: Fixtures.Kind) throws -> any AudioDecoder {
        try Decoders.open(FileSource(path: Fixtures.path(kind)), purpose: .playback)
    }

    @Test(arguments: [(Fixtures.Kind.opus, true), (.opusStereo, true), (.opusChained, true), (.wav, true),
                      (.flac, true), (.mp3, false), (.m4a, false), (.aacADTS, false), (.vorbis, false)])
    func decodingFromASeekPointGivesTheRestOfTheStream(kind: Fixtures.Kind, exact: Bool) throws {
        let full = try decodeAll(try Self.playback(kind))
        let decoder = try Self.playback(kind)
        let channels = decoder.outputChannels
        let target = Int64(decoder.outputRate) * 1234 / 1000  // 1.234 s: not on any frame boundary
        try decoder.seek(toFrame: target)
        let rest = try decodeAll(decoder)
        let expected = Array(full.dropFirst(Int(target) * channels))
        if exact && kind != .opus && kind != .opusStereo && kind != .opusChained {
            #expect(rest == expected, "\(kind)")
        } else {
            // Opus is sample-accurate in position; its pre-roll converges to the same audio within a few samples.
            #expect(abs(rest.count - expected.count) <= (exact ? 0 : 2 * 1152 * channels),
                    "\(kind): \(rest.count / channels) frames after the seek, \(expected.count / channels) expected")
            #expect(correlation(Array(rest.dropFirst(4800 * channels)), Array(expected.dropFirst(4800 * channels))) > 0.98,
                    "\(kind)")
        }
    }

    @Test func seekingTwiceAndBackToTheStartReplays() throws {
        for kind in [Fixtures.Kind.opus, .mp3, .wav] {
            let full = try decodeAll(try Self.playback(kind))
            let decoder = try Self.playback(kind)
            try decoder.seek(toFrame: 96_000)
            _ = try decoder.decodeNext { _ in }
            try decoder.seek(toFrame: 0)
            let again = try decodeAll(decoder)
            #expect(abs(again.count - full.count) <= (kind == .wav ? 0 : 1152 * decoder.outputChannels), "\(kind)")
            #expect(correlation(again, full) > 0.98, "\(kind)")
        }
    }

    @Test func seekingPastTheEndEndsAndNegativeStartsAtZero() throws {
        let decoder = try Self.playback(.opus)
        try decoder.seek(toFrame: Int64.max)
        #expect(try decodeAll(decoder).isEmpty)
        try decoder.seek(toFrame: -5)
        #expect(try decodeAll(decoder).count == (try decodeAll(try Self.playback(.opus))).count)
    }

    @Test func analysisDecodersReadForwardOnly() throws {
        let decoder = try Decoders.open(FileSource(path: Fixtures.path(.opus)), purpose: .analysis)
        #expect(status { try decoder.seek(toFrame: 0) } == .unsupported)
    }
}
