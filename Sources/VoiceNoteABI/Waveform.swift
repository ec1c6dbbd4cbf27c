import CVoiceNote
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteWaveform
import VoiceNoteSources

@c @implementation public func vn_waveform_file(
    _ path: UnsafePointer<CChar>?, _ samples: Int, _ out: UnsafeMutablePointer<Float>?, _ capacity: Int,
    _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    waveformCall(samples: samples, out: out, capacity: capacity, count: count) { () throws(VoiceNoteError) in
        try WaveformAnalysis.waveform(of: FileSource(path: Location.localPath(of: utf8String(path, "path"))), samples: samples)
    }
}

@c @implementation public func vn_waveform_memory(
    _ data: UnsafeRawPointer?, _ size: Int, _ samples: Int, _ out: UnsafeMutablePointer<Float>?, _ capacity: Int,
    _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    waveformCall(samples: samples, out: out, capacity: capacity, count: count) { () throws(VoiceNoteError) in
        let bytes = try checkedCount(size, "size") > 0 ? UnsafeRawBufferPointer(start: try required(data, "data"), count: size) : UnsafeRawBufferPointer(start: nil, count: 0)
        return try WaveformAnalysis.waveform(of: MemorySource(borrowing: bytes), samples: samples)
    }
}

@c @implementation public func vn_waveform_source(
    _ source: OpaquePointer?, _ samples: Int, _ out: UnsafeMutablePointer<Float>?, _ capacity: Int,
    _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    waveformCall(samples: samples, out: out, capacity: capacity, count: count) { () throws(VoiceNoteError) in
        try Handles.get(source, as: SourceHandle.self, "source").with { source throws(VoiceNoteError) in
            try WaveformAnalysis.waveform(of: source, samples: samples)
        }
    }
}

@c @implementation public func vn_waveform_from_pcm_s16(
    _ pcm: UnsafePointer<Int16>?, _ frames: Int, _ channels: Int32, _ samples: Int, _ out: UnsafeMutablePointer<Float>?,
    _ capacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    pcmWaveform(pcm, frames, channels, samples, out, capacity, count) { $0.append($1) }
}

@c @implementation public func vn_waveform_from_pcm_f32(
    _ pcm: UnsafePointer<Float>?, _ frames: Int, _ channels: Int32, _ samples: Int, _ out: UnsafeMutablePointer<Float>?,
    _ capacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    pcmWaveform(pcm, frames, channels, samples, out, capacity, count) { $0.append($1) }
}

/// The waveform of host-decoded PCM of either sample type.
private func pcmWaveform<Sample>(
    _ pcm: UnsafePointer<Sample>?, _ frames: Int, _ channels: Int32, _ samples: Int, _ out: UnsafeMutablePointer<Float>?,
    _ capacity: Int, _ count: UnsafeMutablePointer<Int>?,
    append: (inout WaveformBuckets, UnsafeBufferPointer<Sample>) -> Void
) -> Int32 {
    waveformCall(samples: samples, out: out, capacity: capacity, count: count) { () throws(VoiceNoteError) in
        let input = try pcmBuffer(pcm, frames: frames, channels: channels)
        return try VoiceNoteError.rethrowing {
            var buckets = try WaveformBuckets(frameCount: frames, channels: Int(channels), samples: samples)
            append(&buckets, input)
            return buckets.finish()
        }
    }
}

@c @implementation public func vn_waveform_resample(
    _ values: UnsafePointer<Float>?, _ valueCount: Int, _ target: Int, _ out: UnsafeMutablePointer<Float>?,
    _ capacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    count?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        guard target > 0, target <= Waveform.maximumSampleCount else {
            throw VoiceNoteError(.invalidArgument, "target \(UInt(bitPattern: target)) is outside 1…\(Waveform.maximumSampleCount)")
        }
        let input = try floats(values, valueCount)
        try deliver(Waveform.resample(input, to: target), into: out, capacity: capacity, count: count)
    }
}

@c @implementation public func vn_waveform_bars(
    _ values: UnsafePointer<Float>?, _ valueCount: Int, _ width: Double, _ height: Double,
    _ heights: UnsafeMutablePointer<Float>?, _ capacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    count?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        guard width.isFinite, height.isFinite, width >= 0, height >= 0 else {
            throw VoiceNoteError(.invalidArgument, "width and height must be finite and not negative")
        }
        let bars = WaveformBars(width: width, height: height, levels: try floats(values, valueCount))
        try deliver(bars.heights.map { Float($0) }, into: heights, capacity: capacity, count: count)
    }
}

@c @implementation public func vn_waveform_encode(
    _ encoding: Int32, _ values: UnsafePointer<Float>?, _ valueCount: Int, _ out: UnsafeMutablePointer<Int32>?,
    _ capacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    count?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let kind = try integerEncoding(encoding)
        let encoded = kind.integers(encoding: try floats(values, valueCount)) ?? []
        try deliver(encoded.map { Int32($0) }, into: out, capacity: capacity, count: count)
    }
}

@c @implementation public func vn_waveform_decode(
    _ encoding: Int32, _ encoded: UnsafePointer<Int32>?, _ encodedCount: Int, _ out: UnsafeMutablePointer<Float>?,
    _ capacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    count?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let kind = try integerEncoding(encoding)
        // Checked before copying: no encoding yields more than `maximumDecodedCount` values from this many integers.
        guard encodedCount >= 0, encodedCount <= WaveformEncoding.maximumDecodedCount else {
            throw VoiceNoteError(.format, "\(UInt(bitPattern: encodedCount)) encoded values: more than the \(WaveformEncoding.maximumDecodedCount) a waveform may have")
        }
        let input = encodedCount == 0 ? [] : Array(UnsafeBufferPointer(start: try required(encoded, "encoded"), count: encodedCount))
        let levels = try VoiceNoteError.rethrowing { try kind.levels(decodingIntegers: input.map { Int($0) }) }
        try deliver(levels, into: out, capacity: capacity, count: count)
    }
}

/// The encodings that have an integer form; Stream's values are the floats themselves.
private func integerEncoding(_ encoding: Int32) throws(VoiceNoteError) -> WaveformEncoding {
    switch vn_waveform_encoding(rawValue: UInt32(bitPattern: encoding)) {
    case VN_WAVEFORM_MATRIX: return .matrix
    case VN_WAVEFORM_TELEGRAM: return .telegram
    case VN_WAVEFORM_SIGNAL: return .signal
    case VN_WAVEFORM_STREAM:
        throw VoiceNoteError(.invalidArgument, "Stream's waveform_data is the 0…1 values themselves; no integer encoding")
    default:
        throw VoiceNoteError(.invalidArgument, "unknown waveform encoding \(encoding)")
    }
}

/// Checks the output arguments, computes, and copies the result out.
func waveformCall(
    samples: Int, out: UnsafeMutablePointer<Float>?, capacity: Int, count: UnsafeMutablePointer<Int>?,
    _ compute: () throws(VoiceNoteError) -> [Float]
) -> Int32 {
    count?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        try Waveform.checkSampleCount(samples)
        _ = try required(out, "out")
        guard room(capacity) >= samples else {
            throw VoiceNoteError(.invalidArgument, "capacity \(capacity) is less than samples \(samples)")
        }
        try deliver(compute(), into: out, capacity: capacity, count: count)
    }
}

/// A caller's waveform values (at most `Waveform.maximumSampleCount`); NULL is allowed only when empty.
private func floats(_ values: UnsafePointer<Float>?, _ count: Int) throws(VoiceNoteError) -> [Float] {
    guard try checkedCount(count, "value_count", atMost: Waveform.maximumSampleCount) > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: try required(values, "values"), count: count))
}

/// A caller's interleaved PCM, checked.
private func pcmBuffer<T>(_ pcm: UnsafePointer<T>?, frames: Int, channels: Int32) throws(VoiceNoteError) -> UnsafeBufferPointer<T> {
    guard (1...255).contains(channels) else { throw VoiceNoteError(.invalidArgument, "channels must be 1…255, not \(channels)") }
    guard frames >= 0, !frames.multipliedReportingOverflow(by: Int(channels)).overflow else {
        throw VoiceNoteError(.invalidArgument, "frame count \(UInt(bitPattern: frames)) is out of range: frames × channels must fit in memory")
    }
    guard frames > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(start: try required(pcm, "pcm"), count: frames * Int(channels))
}
