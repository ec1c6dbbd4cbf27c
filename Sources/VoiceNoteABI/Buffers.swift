import VoiceNoteCore

// Copies between Swift arrays and the buffers C callers own: results out, byte inputs in.

/// Copies `values` to a caller buffer; with too little room writes nothing, reports the count needed and fails.
func deliver<T>(_ values: [T], into out: UnsafeMutablePointer<T>?, capacity: Int, count: UnsafeMutablePointer<Int>?) throws(VoiceNoteError) {
    count?.pointee = values.count
    guard values.count <= room(capacity) else {
        throw VoiceNoteError(.invalidArgument, "capacity \(capacity) is less than the \(values.count) values needed")
    }
    guard !values.isEmpty else { return }
    let out = try required(out, "out")
    values.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress { out.update(from: base, count: buffer.count) }
    }
}

/// A copy of caller bytes; NULL is allowed only with size 0.
func copyBytes(_ data: UnsafeRawPointer?, _ size: Int) throws(VoiceNoteError) -> [UInt8] {
    guard try checkedCount(size, "size") > 0 else { return [] }
    let data = try required(data, "data")
    return Array(UnsafeRawBufferPointer(start: data, count: size))
}
