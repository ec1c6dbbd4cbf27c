import CVoiceNote
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

@c @implementation public func vn_audio_info_file(_ path: UnsafePointer<CChar>?, _ info: UnsafeMutablePointer<vn_audio_info>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let info = try required(info, "info")
        let source = try FileSource(path: Location.localPath(of: utf8String(path, "path")))
        try fill(info, with: Decoders.info(of: source))
    }
}

@c @implementation public func vn_audio_info_source(_ source: OpaquePointer?, _ info: UnsafeMutablePointer<vn_audio_info>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(source, as: SourceHandle.self, "source")
        let info = try required(info, "info")
        try fill(info, with: handle.with { source throws(VoiceNoteError) in try Decoders.info(of: source) })
    }
}

/// Writes the facts into the caller's struct, no further than the `size` it declared.
private func fill(_ out: UnsafeMutablePointer<vn_audio_info>, with info: StreamInfo) throws(VoiceNoteError) {
    let callerSize = out.pointee.size
    guard callerSize >= MemoryLayout<vn_audio_info>.size else {
        throw VoiceNoteError(.invalidArgument, "info->size is \(callerSize); set it to sizeof(vn_audio_info)")
    }
    var value = vn_audio_info()
    value.size = MemoryLayout<vn_audio_info>.size
    value.duration_s = info.duration
    value.duration_is_estimate = info.durationIsEstimate ? 1 : 0
    value.sample_rate = Int32(clamping: info.sampleRate)
    value.channels = Int32(clamping: info.channels)
    value.bitrate = Int64(info.bitrate)
    withUnsafeMutableBytes(of: &value.codec) { codec in
        let name = Array(info.codec.utf8.prefix(codec.count - 1))
        codec.copyBytes(from: name + [0])
    }
    out.pointee = value
}
