import VoiceNoteCore
import VoiceNoteSources

/// Ogg Opus playback of a download still arriving: it plays once the headers are in, not once the whole file is.
///
/// - While bytes arrive, libopusfile reads the stream forward only (it would otherwise read the end of the file
///   first), and the duration is an estimate (`info.durationIsEstimate`): the packets that have arrived, scaled to
///   the whole size, refined at every decode step. Once every byte is in, the length is the probe's, by the same rule
///   as for a file, and the estimate flag goes off.
/// - A seek uses libopusfile's own seeking (with range requests for what has not arrived) when the server takes
///   ranges or the download is complete. Otherwise it decodes forward to the target (from the start for a seek
///   back), waiting for the download to get there: a server without ranges is read in one pass.
final class ProgressiveOpusDecoder: AudioDecoder {
    private let source: any ArrivingSource
    private let scan: OpusArrivalScan
    private var decoder: OpusFileDecoder
    /// Whether `decoder` was opened seekable (else forward-only).
    private var seekable = false
    /// The frame `decoder` produces next, and the frame output starts at (frames below are decoded and dropped).
    private var nextFrame: Int64 = 0
    private var skipTo: Int64 = 0
    private(set) var info: StreamInfo
    private(set) var exactFrameCount: Int64?
    let outputChannels: Int
    var channelOrder: ChannelOrder { decoder.channelOrder }
    var outputRate: Int { 48_000 }

    /// Opens a download whose first bytes hold an Opus stream; nil when they hold another codec's (FFmpeg's).
    /// Waits for the headers; `.format` for damaged ones.
    init?(source: any ArrivingSource) throws(VoiceNoteError) {
        scan = OpusArrivalScan(source: source)
        guard let header = try scan.readHeader() else { return nil }
        self.source = source
        decoder = try OpusFileDecoder(source: source, probe: nil, streaming: true)
        outputChannels = decoder.outputChannels
        info = StreamInfo(codec: "opus", sampleRate: 48_000, channels: header.channels, duration: 0,
                          durationIsEstimate: true, bitrate: 0)
        try refresh()
    }

    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        try refresh()
        while true {
            var delivered = false
            let more = try decoder.decodeNext { chunk in
                let start = nextFrame
                nextFrame += Int64(chunk.frames)
                guard nextFrame > skipTo else { return }
                let drop = Int(max(0, skipTo - start)) * chunk.channels
                delivered = true
                consume(PCMChunk(samples: UnsafeBufferPointer(rebasing: chunk.samples[drop...]), channels: chunk.channels))
            }
            if delivered || !more { return more }
        }
    }

    func seek(toFrame frame: Int64) throws(VoiceNoteError) {
        try refresh()
        let target = min(max(0, frame), exactFrameCount ?? .max)
        if !seekable && (scan.isComplete || source.seeksByRange) {
            // A whole file gets the probe's length; a partial one opusfile's reading of its last page.
            decoder = try OpusFileDecoder(source: source, probe: scan.isComplete ? try scan.probe() : nil)
            seekable = true
        }
        if seekable {
            try decoder.seek(toFrame: target)
            nextFrame = target
            skipTo = target
            return
        }
        if target < nextFrame {
            decoder = try OpusFileDecoder(source: source, probe: nil, streaming: true)
            nextFrame = 0
            if let exactFrameCount { decoder.bound(length: exactFrameCount, produced: 0) }
        }
        skipTo = target
    }

    /// Scans what arrived since the last step: a new estimate, or the exact length once every byte is in.
    private func refresh() throws(VoiceNoteError) {
        guard exactFrameCount == nil else { return }
        try scan.advance()
        if scan.isComplete, let length = try? scan.exactLength() {
            exactFrameCount = length
            decoder.bound(length: length, produced: nextFrame)
            info.duration = Double(length) / 48_000
            info.durationIsEstimate = false
            info.bitrate = OpusProbe.bitrate(bytes: source.size ?? scan.scanned, samples: length)
        } else {
            let estimate = scan.estimatedLength()
            info.duration = Double(estimate) / 48_000
            info.bitrate = OpusProbe.bitrate(bytes: scan.scanned, samples: scan.heldLength)
        }
    }
}
