import CVoiceNote
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteSources

/// The handle type of `vn_convert_options *`.
typealias ConvertOptionsHandle = OptionsHandle<NoteConverter.Options>

@c @implementation public func vn_convert_options_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(ConvertOptionsHandle(NoteConverter.Options()))
    }
}

@c @implementation public func vn_convert_options_destroy(_ options: OpaquePointer?) {
    _ = Handles.remove(options, as: ConvertOptionsHandle.self)
}

@c @implementation public func vn_convert_options_set_rate(_ options: OpaquePointer?, _ rate: Double) -> Int32 {
    ConvertOptionsHandle.update(options) { (value) throws(VoiceNoteError) in value.rate = try PlaybackRate(rate) }
}

@c @implementation public func vn_convert_options_set_format(_ options: OpaquePointer?, _ format: Int32) -> Int32 {
    ConvertOptionsHandle.update(options) { (value) throws(VoiceNoteError) in value.format = try recordingFormat(format) }
}

@c @implementation public func vn_convert_options_set_encoder(
    _ options: OpaquePointer?, _ bitrate: Int32, _ complexity: Int32, _ frameMs: Double
) -> Int32 {
    ConvertOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        value.encoder = try encoderSettings(bitrate, complexity, frameMs)
    }
}

@c @implementation public func vn_convert_file(
    _ path: UnsafePointer<CChar>?, _ outPath: UnsafePointer<CChar>?, _ options: OpaquePointer?,
    _ outDuration: UnsafeMutablePointer<Double>?
) -> Int32 {
    outDuration?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let input = try nonEmptyString(path, "path"), output = try nonEmptyString(outPath, "out_path")
        let value = try ConvertOptionsHandle.value(of: options, or: NoteConverter.Options())
        let duration = try NoteConverter.convert(try FileSource(path: Location.localPath(of: input)), to: output, options: value)
        outDuration?.pointee = duration
    }
}

@c @implementation public func vn_convert_source(
    _ source: OpaquePointer?, _ outPath: UnsafePointer<CChar>?, _ options: OpaquePointer?,
    _ outDuration: UnsafeMutablePointer<Double>?
) -> Int32 {
    outDuration?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(source, as: SourceHandle.self, "source")
        let output = try nonEmptyString(outPath, "out_path")
        let value = try ConvertOptionsHandle.value(of: options, or: NoteConverter.Options())
        let duration = try handle.with { (source) throws(VoiceNoteError) in
            try NoteConverter.convert(source, to: output, options: value)
        }
        outDuration?.pointee = duration
    }
}
