import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteWaveform

/// The waveform of an Opus take computed from the pages the encoder writes, decoded as `waveform()` decodes the
/// finished file (16 kHz, same trimming): what we send is exactly what receivers compute from the file
/// (SPEC §2 "Waveform of a take"), at the cost of a 16 kHz decode beside the encode, and without reading the file.
final class EncodedTakeWaveform {
    private let analyzer = OpusStreamAnalyzer()
    private var blocks: WaveformBlocks?
    /// The first analysis failure; the waveform then falls back to the captured PCM's.
    private(set) var failure: VoiceNoteError?

    /// Takes one page as it reached the disk.
    func feed(page: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        do throws(VoiceNoteError) {
            try analyzer.feed(page: page) { chunk in append(chunk) }
        } catch {
            failure = error
        }
    }

    /// The 100 values, once the encoder has written its last page; nil when analysis failed or saw no audio.
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
