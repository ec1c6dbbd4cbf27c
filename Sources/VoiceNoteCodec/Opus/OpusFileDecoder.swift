#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import COpusFile
import VoiceNoteSources

/// Ogg Opus that the analysis path does not take (multichannel families, chained or multiplexed files), and later
/// Opus playback: libopusfile over a `ByteSource` (the only libopusfile caller). Output: int16 at 48 kHz.
final class OpusFileDecoder: AudioDecoder {
    let info: StreamInfo
    let exactFrameCount: Int64?
    let outputChannels: Int
    /// Opened as a forward-only stream.
    private let streaming: Bool
    var outputRate: Int { 48_000 }

    private let file: OpaquePointer
    private let box: Unmanaged<SourceBox>
    private let downmixToStereo: Bool
    /// Vorbis's order for more than two channels (libopusfile's), unless downmixed to stereo.
    var channelOrder: ChannelOrder { downmixToStereo || outputChannels <= 2 ? .wave : .vorbis }
    private var pcm: [Int16]
    /// Frames still allowed out, when the length is known.
    private var framesLeft: Int64?
    /// What the links after the first hold against their bytes (`HonestLength.Bound.opusLinks`): the first link is
    /// counted packet by packet by the probe (or a download's scan), the later ones only here.
    private var laterLinks = HonestLength(.opusLinks, sampleRate: 48_000)

    /// Opens `source` (rewound here); `.format` when opusfile rejects it or the links after the first claim more
    /// than their bytes can honestly hold (opened whole; read forward, as they are decoded). `streaming` opens it as a
    /// stream that only reads forward (a download still arriving): opusfile then reads the headers alone, not the end
    /// of the file, the length is unknown (`exactFrameCount` nil until `bound(length:produced:)`) and seeking is
    /// `.unsupported`.
    init(source: ByteSource, probe: OpusProbe?, streaming: Bool = false) throws(VoiceNoteError) {
        try source.seek(to: 0)
        let box = Unmanaged.passRetained(SourceBox(source))
        var callbacks = OpusFileCallbacks(read: { stream, buffer, count in
            guard let stream, let buffer else { return -1 }
            return Int32(SourceBox.from(stream).read(buffer, Int(count)))
        }, seek: { stream, offset, whence in
            guard let stream else { return -1 }
            return SourceBox.from(stream).seek(offset, whence: whence) >= 0 ? 0 : -1
        }, tell: { stream in
            guard let stream else { return -1 }
            return SourceBox.from(stream).source.position
        }, close: nil)
        if streaming { callbacks.seek = nil }
        var error: Int32 = 0
        guard let file = op_open_callbacks(box.toOpaque(), &callbacks, nil, 0, &error) else {
            let failure = box.takeUnretainedValue().takeFailure()
            box.release()
            throw failure ?? VoiceNoteError(.format, "\(source.name): not a playable Ogg Opus stream (opusfile \(error))")
        }
        self.file = file
        self.box = box
        let links = max(1, Int(op_link_count(file)))
        if !streaming {  // opusfile read every link's length when it opened the file whole
            var whole = HonestLength(.opusLinks, sampleRate: 48_000)
            for link in 1..<max(1, links) {
                let (bytes, samples) = (op_raw_total(file, Int32(link)), op_pcm_total(file, Int32(link)))
                whole.add(bytes: Int(clamping: bytes), samples: samples)
            }
            if let excess = whole.excess {
                op_free(file)
                box.release()
                throw VoiceNoteError(.format, "\(source.name): a chained link after the first: \(excess)")
            }
        }
        let channelCounts = Set((0..<links).map { Int(op_channel_count(file, Int32($0))) })
        downmixToStereo = channelCounts.count > 1
        outputChannels = downmixToStereo ? 2 : channelCounts.first ?? 1
        // One stream: the probe's length (the rule info and the waveform share), not opusfile's, which believes
        // the last granule position however absurd. Chained files: opusfile's sum over the links.
        let total = probe?.length ?? op_pcm_total(file, -1)
        exactFrameCount = total >= 0 ? total : nil
        self.streaming = streaming
        framesLeft = exactFrameCount
        let duration = total > 0 ? Double(total) / 48_000 : 0
        let bitrate = op_bitrate(file, -1)
        info = probe?.info ?? StreamInfo(
            codec: "opus", sampleRate: 48_000, channels: outputChannels, duration: duration,
            durationIsEstimate: total < 0, bitrate: bitrate > 0 ? Int(bitrate) : 0)
        pcm = [Int16](repeating: 0, count: 5760 * max(outputChannels, 2))
    }

    deinit {
        op_free(file)
        box.release()
    }

    /// A stream's length became known (its download ended): no more than `length` frames in all come out, of
    /// which `produced` came out already.
    func bound(length: Int64, produced: Int64) {
        framesLeft = max(0, length - produced)
    }

    /// libopusfile's sample-accurate seek (it decodes the pre-roll itself).
    func seek(toFrame frame: Int64) throws(VoiceNoteError) {
        guard !streaming else { throw VoiceNoteError(.unsupported, "a stream opened forward-only cannot seek") }
        let target = min(max(0, frame), exactFrameCount ?? Int64.max)
        if let total = exactFrameCount, target >= total {
            framesLeft = 0  // the end: opusfile only seeks to a sample that exists
            return
        }
        let result = op_pcm_seek(file, target)
        if let failure = box.takeUnretainedValue().takeFailure() { throw failure }
        guard result == 0 else {
            throw VoiceNoteError(result == OP_ENOSEEK ? .unsupported : .format, "seek to frame \(target): opusfile \(result)")
        }
        framesLeft = exactFrameCount.map { $0 - target }
    }

    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        while true {
            let capacity = Int32(pcm.count)
            var link: Int32 = 0
            let before = op_raw_tell(file)
            let frames = pcm.withUnsafeMutableBufferPointer { out in
                downmixToStereo ? op_read_stereo(file, out.baseAddress, capacity) : op_read(file, out.baseAddress, capacity, &link)
            }
            if let failure = box.takeUnretainedValue().takeFailure() { throw failure }
            if frames == OP_HOLE { continue }  // damaged data skipped; opusfile resumes after it
            if frames > 0, op_current_link(file) > 0 {
                laterLinks.add(bytes: Int(clamping: max(0, op_raw_tell(file) - before)), samples: Int64(frames))
                if let excess = laterLinks.excess {
                    let name = box.takeUnretainedValue().source.name
                    throw VoiceNoteError(.format, "\(name): a chained link after the first: \(excess)")
                }
            }
            if frames > 0, !downmixToStereo, Int(op_channel_count(file, link)) != outputChannels {
                // Only a stream read forward can meet a chained link of another layout (opened whole, it downmixes).
                throw VoiceNoteError(.unsupported, "\(box.takeUnretainedValue().source.name): a chained link changes the channel count")
            }
            let allowed = Int(min(Int64(frames), framesLeft ?? Int64(frames)))
            guard allowed > 0 else { return false }
            framesLeft = framesLeft.map { $0 - Int64(allowed) }
            pcm.withUnsafeBufferPointer { all in
                consume(PCMChunk(samples: UnsafeBufferPointer(rebasing: all[0..<(allowed * outputChannels)]),
                                 channels: outputChannels))
            }
            return true
        }
    }
}
