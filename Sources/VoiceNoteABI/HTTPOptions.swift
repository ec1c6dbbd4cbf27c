import CVoiceNote
import VoiceNoteCore
import VoiceNoteNetwork

/// The handle type of `vn_http_options *`.
typealias HTTPOptionsHandle = OptionsHandle<HTTPOptions>

@c @implementation public func vn_http_options_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(HTTPOptionsHandle(HTTPOptions()))
    }
}

@c @implementation public func vn_http_options_destroy(_ options: OpaquePointer?) {
    _ = Handles.remove(options, as: HTTPOptionsHandle.self)
}

@c @implementation public func vn_http_options_add_header(
    _ options: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> Int32 {
    HTTPOptionsHandle.update(options) { (options) throws(VoiceNoteError) in
        try options.addHeader(name: try nonEmptyString(name, "name"), value: try utf8String(value, "value"))
    }
}

@c @implementation public func vn_http_options_set_ca_file(_ options: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    HTTPOptionsHandle.update(options) { (options) throws(VoiceNoteError) in
        try options.setCAFile(try path.map { (text) throws(VoiceNoteError) in try utf8String(text, "path") })
    }
}

@c @implementation public func vn_http_options_set_connect_timeout(_ options: OpaquePointer?, _ seconds: Double) -> Int32 {
    HTTPOptionsHandle.update(options) { (options) throws(VoiceNoteError) in try options.setConnectTimeout(seconds) }
}

@c @implementation public func vn_http_options_set_stall_timeout(_ options: OpaquePointer?, _ seconds: Double) -> Int32 {
    HTTPOptionsHandle.update(options) { (options) throws(VoiceNoteError) in try options.setStallTimeout(seconds) }
}

@c @implementation public func vn_http_options_set_transfer_timeout(_ options: OpaquePointer?, _ seconds: Double) -> Int32 {
    HTTPOptionsHandle.update(options) { (options) throws(VoiceNoteError) in try options.setTransferTimeout(seconds) }
}

@c @implementation public func vn_http_options_set_max_bytes(_ options: OpaquePointer?, _ bytes: Int64) -> Int32 {
    HTTPOptionsHandle.update(options) { (options) throws(VoiceNoteError) in try options.setMaximumBytes(bytes) }
}

@c @implementation public func vn_source_create_url(
    _ url: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let text = try utf8String(url, "url")
        let settings = try HTTPOptionsHandle.value(of: options, or: HTTPOptions())
        out.pointee = Handles.make(SourceHandle(try RemoteMedia.open(url: text, options: settings)))
    }
}
