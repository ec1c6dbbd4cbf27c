import CVoiceNote
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON

/// The object behind a `vn_payload *`: a payload under a lock (one thread at a time is the contract; the lock
/// keeps a misbehaving host from tearing it).
typealias PayloadHandle = ValueHandle<VoiceRecordingPayload>

extension ValueHandle where Value == VoiceRecordingPayload {
    /// Applies a change to the payload behind `handle`.
    static func change(_ handle: OpaquePointer?, _ body: (inout VoiceRecordingPayload) throws(VoiceNoteError) -> Void) -> Int32 {
        update(handle, "payload", body)
    }

    /// Runs a reading call on the payload behind `handle`.
    static func read(_ handle: OpaquePointer?, _ body: (VoiceRecordingPayload) throws(VoiceNoteError) -> Void) -> Int32 {
        abiCall { () throws(VoiceNoteError) in try body(try value(of: handle, "payload")) }
    }
}

/// UTF-8 text of a C buffer with a length (not NUL-terminated); `.invalidArgument` for NULL.
func textBuffer(_ bytes: UnsafePointer<CChar>?, _ length: Int, _ name: StaticString) throws(VoiceNoteError) -> UnsafeRawBufferPointer {
    let bytes = try required(bytes, name)
    return UnsafeRawBufferPointer(start: bytes, count: try checkedCount(length, "length"))
}

@c @implementation public func vn_payload_create(_ assetURL: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        out.pointee = Handles.make(PayloadHandle(try VoiceRecordingPayload(assetURL: try utf8String(assetURL, "asset_url"))))
    }
}

@c @implementation public func vn_payload_parse(_ json: UnsafePointer<CChar>?, _ length: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let document = try JSONDocument(parsing: try textBuffer(json, length, "json"), limits: .payload, what: "a voiceRecording payload")
        out.pointee = Handles.make(PayloadHandle(try VoiceRecordingPayload(document: document.top)))
    }
}

@c @implementation public func vn_payload_from_recording(
    _ path: UnsafePointer<CChar>?, _ durationS: Double, _ waveform: UnsafePointer<Float>?, _ count: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let path = try nonEmptyString(path, "path")
        guard !durationS.isNaN, durationS.isFinite || durationS < 0 else {
            throw VoiceNoteError(.invalidArgument, "duration_s \(durationS) is not a number of seconds (negative: read it)")
        }
        let levels = try waveform.map { (values) throws(VoiceNoteError) in
            Array(UnsafeBufferPointer(start: values, count: try checkedCount(count, "count", atMost: 1 << 20)))
        }
        let payload = try VoiceRecordingPayload.fromRecording(path: path, duration: durationS < 0 ? nil : durationS, waveform: levels)
        out.pointee = Handles.make(PayloadHandle(payload))
    }
}

@c @implementation public func vn_payload_destroy(_ payload: OpaquePointer?) {
    _ = Handles.remove(payload, as: PayloadHandle.self)
}

@c @implementation public func vn_payload_to_json(_ payload: OpaquePointer?, _ indent: Int32, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    return PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in
        let out = try required(outJSON, "out_json")
        guard (0...16).contains(indent) else { throw VoiceNoteError(.invalidArgument, "indent \(indent) is outside 0…16") }
        out.pointee = try ownedCString(payload.json(indent: Int(indent)))
    }
}

@c @implementation public func vn_payload_copy_field(_ payload: OpaquePointer?, _ field: Int32, _ outText: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outText?.pointee = nil
    return PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in
        let out = try required(outText, "out_text")
        let text: String? = switch try payloadField(field) {
        case VN_PAYLOAD_TYPE: payload.type
        case VN_PAYLOAD_TITLE: payload.title
        case VN_PAYLOAD_ASSET_URL: payload.assetURL
        default: payload.mimeType
        }
        out.pointee = try text.map(ownedCString)
    }
}

@c @implementation public func vn_payload_set_field(_ payload: OpaquePointer?, _ field: Int32, _ text: UnsafePointer<CChar>?) -> Int32 {
    PayloadHandle.change(payload) { (payload) throws(VoiceNoteError) in
        let which = try payloadField(field)
        let value = try text.map { (text) throws(VoiceNoteError) in try utf8String(text, "text") }
        switch which {
        case VN_PAYLOAD_TYPE:
            try payload.setType(value.map(AttachmentType.init(rawValue:)))
        case VN_PAYLOAD_TITLE: payload.title = value
        case VN_PAYLOAD_ASSET_URL: try payload.setAssetURL(try required(value, "text"))
        default: payload.mimeType = value
        }
    }
}

/// A `vn_payload_field` from C; `.invalidArgument` for another number.
private func payloadField(_ field: Int32) throws(VoiceNoteError) -> vn_payload_field {
    guard (VN_PAYLOAD_TYPE.rawValue...VN_PAYLOAD_MIME_TYPE.rawValue).contains(UInt32(bitPattern: field)) else {
        throw VoiceNoteError(.invalidArgument, "field \(field) is not a vn_payload_field")
    }
    return vn_payload_field(rawValue: UInt32(field))
}

@c @implementation public func vn_payload_get_file_size(_ payload: OpaquePointer?, _ outBytes: UnsafeMutablePointer<Int64>?) -> Int32 {
    PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in try required(outBytes, "out_bytes").pointee = payload.fileSize ?? -1 }
}

@c @implementation public func vn_payload_set_file_size(_ payload: OpaquePointer?, _ bytes: Int64) -> Int32 {
    PayloadHandle.change(payload) { payload in payload.fileSize = bytes < 0 ? nil : bytes }
}

@c @implementation public func vn_payload_get_duration_s(_ payload: OpaquePointer?, _ outS: UnsafeMutablePointer<Double>?) -> Int32 {
    PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in try required(outS, "out_s").pointee = payload.duration ?? -1 }
}

@c @implementation public func vn_payload_set_duration_s(_ payload: OpaquePointer?, _ seconds: Double) -> Int32 {
    PayloadHandle.change(payload) { (payload) throws(VoiceNoteError) in
        // -infinity is no "remove it" either: every non-finite value is refused, as the header says.
        guard seconds.isFinite else { throw VoiceNoteError(.invalidArgument, "seconds is \(seconds)") }
        try payload.setDuration(seconds < 0 ? nil : seconds)
    }
}

@c @implementation public func vn_payload_get_waveform(_ payload: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ capacity: Int, _ count: UnsafeMutablePointer<Int>?) -> Int32 {
    PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in
        let count = try required(count, "count")
        let room = room(capacity)
        guard room == 0 || out != nil else { throw VoiceNoteError(.invalidArgument, "out is NULL with a capacity") }
        let levels = payload.waveform ?? []
        if let out { for (index, level) in levels.prefix(room).enumerated() { out[index] = level } }
        count.pointee = levels.count
    }
}

@c @implementation public func vn_payload_set_waveform(_ payload: OpaquePointer?, _ values: UnsafePointer<Double>?, _ count: Int) -> Int32 {
    PayloadHandle.change(payload) { (payload) throws(VoiceNoteError) in
        let levels = try values.map { (values) throws(VoiceNoteError) in
            Array(UnsafeBufferPointer(start: values, count: try checkedCount(count, "count", atMost: 1 << 20)))
        }
        try payload.setWaveform(levels)
    }
}

@c @implementation public func vn_payload_copy_extra_data(_ payload: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    return PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in
        let out = try required(outJSON, "out_json")
        out.pointee = try ownedCString(try JSONValue.object(payload.extraData).text())
    }
}

@c @implementation public func vn_payload_set_extra_data(_ payload: OpaquePointer?, _ json: UnsafePointer<CChar>?) -> Int32 {
    PayloadHandle.change(payload) { (payload) throws(VoiceNoteError) in
        var extra = JSONObject()
        if let json {
            guard let object = try JSONValue(parsing: try utf8String(json, "json"), limits: .payload, what: "the extra data").object else {
                throw VoiceNoteError(.format, "the extra data is not a JSON object")
            }
            extra = object
        }
        try payload.setExtraData(extra)
    }
}

@c @implementation public func vn_payload_to_matrix_content(
    _ payload: OpaquePointer?, _ body: UnsafePointer<CChar>?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    outJSON?.pointee = nil
    return PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in
        let out = try required(outJSON, "out_json")
        let body = try body.map { (text) throws(VoiceNoteError) in try utf8String(text, "body") }
        out.pointee = try ownedCString(try MatrixVoiceMessage.content(of: payload, body: body))
    }
}

@c @implementation public func vn_payload_from_matrix_content(
    _ json: UnsafePointer<CChar>?, _ length: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ outIsVoice: UnsafeMutablePointer<Int32>?
) -> Int32 {
    out?.pointee = nil
    outIsVoice?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let document = try JSONDocument(parsing: try textBuffer(json, length, "content_json"), limits: .payload,
                                        what: "a Matrix message content")
        let read = try MatrixVoiceMessage.payload(fromContent: document.top)
        out.pointee = Handles.make(PayloadHandle(read.payload))
        outIsVoice?.pointee = read.isVoice ? 1 : 0
    }
}

@c @implementation public func vn_matrix_download_url(
    _ mxc: UnsafePointer<CChar>?, _ homeserver: UnsafePointer<CChar>?, _ outURL: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    outURL?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(outURL, "out_url")
        out.pointee = try ownedCString(try MatrixVoiceMessage.downloadURL(mxc: try utf8String(mxc, "mxc_uri"),
                                                                        homeserver: try utf8String(homeserver, "homeserver")))
    }
}
