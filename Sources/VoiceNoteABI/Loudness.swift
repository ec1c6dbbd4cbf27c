import CVoiceNote
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteWaveform

extension vn_loudness {
    /// The C form of `loudness`; `known` 0 (and zeros) for nil.
    init(_ loudness: Loudness?) {
        self.init()
        guard let loudness else { return }
        known = 1
        integrated_lufs = loudness.integrated
        range_lu = loudness.range
        true_peak_dbtp = loudness.truePeak
    }

    /// The loudness a caller gave: nil for `known` 0. - Throws: `.invalidArgument` for a `known` other than 0 or 1,
    /// or figures outside `Loudness.isPlausible`.
    func checked() throws(VoiceNoteError) -> Loudness? {
        switch known {
        case 0: return nil
        case 1: break
        default: throw VoiceNoteError(.invalidArgument, "loudness->known is \(known); 0 or 1")
        }
        let loudness = Loudness(integrated: integrated_lufs, range: range_lu, truePeak: true_peak_dbtp)
        guard loudness.isPlausible else {
            throw VoiceNoteError(.invalidArgument, "\(loudness) is not a plausible loudness")
        }
        return loudness
    }
}

@c @implementation public func vn_waveform_analyse_file(
    _ path: UnsafePointer<CChar>?, _ samples: Int, _ out: UnsafeMutablePointer<Float>?, _ capacity: Int,
    _ count: UnsafeMutablePointer<Int>?, _ durationS: UnsafeMutablePointer<Double>?, _ loudness: UnsafeMutablePointer<vn_loudness>?
) -> Int32 {
    analysisCall(samples: samples, out: out, capacity: capacity, count: count, durationS, loudness) { () throws(VoiceNoteError) in
        try WaveformAnalysis.analyse(FileSource(path: Location.localPath(of: utf8String(path, "path"))), samples: samples,
                                     loudness: loudness != nil)
    }
}

@c @implementation public func vn_waveform_analyse_source(
    _ source: OpaquePointer?, _ samples: Int, _ out: UnsafeMutablePointer<Float>?, _ capacity: Int,
    _ count: UnsafeMutablePointer<Int>?, _ durationS: UnsafeMutablePointer<Double>?, _ loudness: UnsafeMutablePointer<vn_loudness>?
) -> Int32 {
    analysisCall(samples: samples, out: out, capacity: capacity, count: count, durationS, loudness) { () throws(VoiceNoteError) in
        try Handles.get(source, as: SourceHandle.self, "source").with { source throws(VoiceNoteError) in
            try WaveformAnalysis.analyse(source, samples: samples, loudness: loudness != nil)
        }
    }
}

/// A waveform call that also gives the length and the loudness (each zeroed first, filled on success).
private func analysisCall(
    samples: Int, out: UnsafeMutablePointer<Float>?, capacity: Int, count: UnsafeMutablePointer<Int>?,
    _ durationS: UnsafeMutablePointer<Double>?, _ loudness: UnsafeMutablePointer<vn_loudness>?,
    _ compute: () throws(VoiceNoteError) -> WaveformAnalysis.Result
) -> Int32 {
    durationS?.pointee = 0
    loudness?.pointee = vn_loudness(nil)
    var analysis: WaveformAnalysis.Result?
    let status = waveformCall(samples: samples, out: out, capacity: capacity, count: count) { () throws(VoiceNoteError) in
        let result = try compute()
        analysis = result
        return result.values
    }
    if status == Status.ok.rawValue, let analysis {
        durationS?.pointee = analysis.duration
        loudness?.pointee = vn_loudness(analysis.loudness)
    }
    return status
}

@c @implementation public func vn_waveform_batch_set_loudness(_ batch: OpaquePointer?, _ measure: Int32) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(batch, as: WaveformBatchHandle.self, "batch")
        handle.batch.measuresLoudness = try flag(measure, "measure")
    }
}

@c @implementation public func vn_payload_get_loudness(_ payload: OpaquePointer?, _ out: UnsafeMutablePointer<vn_loudness>?) -> Int32 {
    PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in
        try required(out, "out").pointee = vn_loudness(payload.loudness)
    }
}

@c @implementation public func vn_payload_set_loudness(_ payload: OpaquePointer?, _ loudness: UnsafePointer<vn_loudness>?) -> Int32 {
    PayloadHandle.change(payload) { (payload) throws(VoiceNoteError) in
        payload.setLoudness(try loudness?.pointee.checked())
    }
}
