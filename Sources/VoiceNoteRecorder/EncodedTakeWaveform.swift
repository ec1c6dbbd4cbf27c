import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteWaveform

/// The waveform of a take computed from the bytes the encoder writes, decoded as `waveform()` decodes the finished
/// file (Opus at 16 kHz with its trimming; AAC through FFmpeg with its priming): what we send is exactly what
/// receivers compute from the file (docs/recorder.md, "the waveform of a take"), at the cost of a decode beside the encode, and
/// without reading the file again.
final class EncodedTakeWaveform {
    private let analyzer: any StreamAnalyzer
    private var blocks: WaveformBlocks?
    /// The first analysis failure; the waveform then falls back to the captured PCM's.
    private(set) var failure: VoiceNoteError?

    /// An analysis for a take written in `format`; nil when the analyzer cannot be set up.
    init?(format: RecordingFormat) {
        switch format {
        case .opus: analyzer = OpusStreamAnalyzer()
        case .aac:
            guard let aac = try? ADTSStreamAnalyzer() else { return nil }
            analyzer = aac
        }
    }

    /// Takes bytes as they reached the disk.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        do throws(VoiceNoteError) {
            try analyzer.feed(bytes) { chunk in append(chunk) }
        } catch {
            failure = error
        }
    }

    /// The 100 values, once the encoder has written its last bytes; nil when analysis failed or saw no audio.
    func finish() -> [Float]? {
        analyzer.finish { chunk in append(chunk) }
        guard failure == nil, let blocks, blocks.frameCount > 0 else { return nil }
        return try? blocks.finish(samples: Waveform.defaultSampleCount)
    }

    private func append(_ chunk: PCMChunk) {
        if blocks == nil { blocks = try? WaveformBlocks(channels: chunk.channels) }
        blocks?.append(chunk.samples)
    }
}
