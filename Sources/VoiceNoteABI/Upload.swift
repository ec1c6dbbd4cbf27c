#if canImport(Glibc)
import Glibc
#endif
import CVoiceNote
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteRecorder

/// What a `vn_upload_options *` holds: the upload options and the dispatcher for events.
struct UploadSettings: Sendable {
    var options = UploadOptions()
    var dispatcher: any EventDispatcher = EventThread.shared
}

/// The handle type of `vn_upload_options *`.
typealias UploadOptionsHandle = OptionsHandle<UploadSettings>

@c @implementation public func vn_upload_options_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(UploadOptionsHandle(UploadSettings()))
    }
}

@c @implementation public func vn_upload_options_destroy(_ options: OpaquePointer?) {
    _ = Handles.remove(options, as: UploadOptionsHandle.self)
}

@c @implementation public func vn_upload_options_set_mode(_ options: OpaquePointer?, _ mode: Int32) -> Int32 {
    UploadOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        switch UInt32(bitPattern: mode) {
        case VN_UPLOAD_MULTIPART.rawValue: value.options.mode = .multipart
        case VN_UPLOAD_RAW.rawValue: value.options.mode = .raw
        case VN_UPLOAD_MATRIX.rawValue: value.options.mode = .matrix
        case VN_UPLOAD_TUS.rawValue: value.options.mode = .tus
        default: throw VoiceNoteError(.invalidArgument, "mode \(mode) is not a vn_upload_mode")
        }
    }
}

@c @implementation public func vn_upload_options_set_http(_ options: OpaquePointer?, _ http: OpaquePointer?) -> Int32 {
    UploadOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        value.options.http = try HTTPOptionsHandle.value(of: http, or: HTTPOptions())
    }
}

@c @implementation public func vn_upload_options_add_query(_ options: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    UploadOptionsHandle.update(options) { (settings) throws(VoiceNoteError) in
        try settings.options.addQuery(name: try nonEmptyString(name, "name"), value: try utf8String(value, "value"))
    }
}

@c @implementation public func vn_upload_options_set_url_key(_ options: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> Int32 {
    UploadOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        value.options.urlKey = try key.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "key") }
    }
}

@c @implementation public func vn_upload_options_set_attachment_type(_ options: OpaquePointer?, _ type: UnsafePointer<CChar>?) -> Int32 {
    UploadOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        let type = AttachmentType(rawValue: try utf8String(type, "type"))
        guard AttachmentType.uploadable.contains(type) else {
            throw VoiceNoteError(.unsupported, "an attachment of type \(type) cannot be uploaded")
        }
        value.options.type = type
    }
}

@c @implementation public func vn_upload_options_set_max_bytes(_ options: OpaquePointer?, _ maxBytes: Int64) -> Int32 {
    UploadOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        guard maxBytes > 0 else { throw VoiceNoteError(.invalidArgument, "max_bytes \(maxBytes) is not 1 or more") }
        value.options.maximumBytes = maxBytes
    }
}

@c @implementation public func vn_upload_options_set_event_loop(_ options: OpaquePointer?, _ loop: OpaquePointer?) -> Int32 {
    UploadOptionsHandle.update(options) { (value) throws(VoiceNoteError) in value.dispatcher = try dispatcher(for: loop) }
}

/// The object behind a `vn_uploader *`: the uploader, and the source it holds for an upload of a `vn_source`
/// (claimed until another upload replaces it or the uploader is destroyed, so a retry can send it again).
final class UploaderHandle: Sendable {
    let uploader: Uploader
    /// The source the last upload sends (none for a file).
    let sources = SourceHolder()

    init(_ uploader: Uploader) {
        self.uploader = uploader
    }

    func close() {
        uploader.close()
        sources.hold(nil)
    }
}

/// A C post-processor: the hook, its user data and its release, which runs when the last upload using it is done
/// with it (the hook was replaced, or the uploader destroyed).
extension CHook where Function == vn_upload_post_processor_fn {
    /// Calls the hook with the payload's JSON; its answer (a vn_strdup'ed payload, freed here) replaces it.
    func process(_ payload: VoiceRecordingPayload) throws(VoiceNoteError) -> VoiceRecordingPayload {
        var answer: UnsafeMutablePointer<CChar>?
        let status = payload.json().withCString { function(userData, $0, &answer) }
        defer { free(answer) }
        if let failure = hookFailure(status, "the post-processor") { throw failure }
        guard let answer else { return payload }
        guard let text = String(validatingCString: answer) else {
            throw VoiceNoteError(.format, "the post-processor's payload is not UTF-8")
        }
        return try VoiceRecordingPayload(json: text)
    }
}

@c @implementation public func vn_uploader_create(_ endpoint: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let settings = try UploadOptionsHandle.value(of: options, or: UploadSettings())
        let uploader = try Uploader(endpoint: try utf8String(endpoint, "endpoint"), options: settings.options, dispatcher: settings.dispatcher)
        out.pointee = Handles.make(UploaderHandle(uploader))
    }
}

@c @implementation public func vn_uploader_destroy(_ uploader: OpaquePointer?) {
    Handles.remove(uploader, as: UploaderHandle.self)?.close()
}

/// Runs a call on the uploader behind a handle.
private func withUploader(_ uploader: OpaquePointer?, _ body: (UploaderHandle) throws(VoiceNoteError) -> Void) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try body(try Handles.get(uploader, as: UploaderHandle.self, "uploader")) }
}

@c @implementation public func vn_uploader_subscribe(
    _ uploader: OpaquePointer?, _ callback: vn_upload_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ outId: UnsafeMutablePointer<vn_subscription_id>?
) -> Int32 {
    withUploader(uploader) { (handle) throws(VoiceNoteError) in
        try subscribeC(handle.uploader.events, callback, userData, release, outId) { state, subscriber in
            state.withCEvent { subscriber.function(subscriber.userData, $0) }
        }
    }
}

@c @implementation public func vn_uploader_set_post_processor(
    _ uploader: OpaquePointer?, _ hook: vn_upload_post_processor_fn?, _ userData: UnsafeMutableRawPointer?, _ release: vn_release_fn?
) -> Int32 {
    withUploader(uploader) { handle in
        guard let hook else {
            handle.uploader.setPostProcessor(nil)
            return
        }
        let processor = CHook(hook, userData: userData, release: release)
        handle.uploader.setPostProcessor { (payload) throws(VoiceNoteError) in try processor.process(payload) }
    }
}

/// The payload of a C handle, or nil for NULL.
private func payload(_ handle: OpaquePointer?) throws(VoiceNoteError) -> VoiceRecordingPayload? {
    guard handle != nil else { return nil }
    return try PayloadHandle.value(of: handle, "payload")
}

@c @implementation public func vn_uploader_upload_file(_ uploader: OpaquePointer?, _ location: UnsafePointer<CChar>?, _ given: OpaquePointer?) -> Int32 {
    withUploader(uploader) { (handle) throws(VoiceNoteError) in
        try handle.uploader.upload(.file(try nonEmptyString(location, "location")), payload: try payload(given))
        handle.sources.hold(nil)
    }
}

@c @implementation public func vn_uploader_upload_source(
    _ uploader: OpaquePointer?, _ source: OpaquePointer?, _ fileName: UnsafePointer<CChar>?, _ mimeType: UnsafePointer<CChar>?, _ given: OpaquePointer?
) -> Int32 {
    withUploader(uploader) { (handle) throws(VoiceNoteError) in
        let sourceHandle = try Handles.get(source, as: SourceHandle.self, "source")
        let name = try nonEmptyString(fileName, "file_name")
        let type = try mimeType.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "mime_type") }
        let completing = try payload(given)
        let held = try HeldSource(claiming: sourceHandle)
        try handle.uploader.upload(.source(held, fileName: name, mimeType: type), payload: completing)
        handle.sources.hold(held)
    }
}

@c @implementation public func vn_uploader_upload_recording(_ uploader: OpaquePointer?, _ recorder: OpaquePointer?) -> Int32 {
    withUploader(uploader) { (handle) throws(VoiceNoteError) in
        let recording = try Handles.get(recorder, as: Recorder.self, "recorder")
        try handle.uploader.upload(.live(try recording.streamTake()))
        handle.sources.hold(nil)
    }
}

@c @implementation public func vn_uploader_cancel(_ uploader: OpaquePointer?) -> Int32 {
    withUploader(uploader) { handle in handle.uploader.cancel() }
}

@c @implementation public func vn_uploader_retry(_ uploader: OpaquePointer?) -> Int32 {
    withUploader(uploader) { (handle) throws(VoiceNoteError) in try handle.uploader.retry() }
}

/// The `vn_upload_state` of a state (PENDING before any upload).
private func cState(_ state: UploadState?) -> Int32 {
    let value: vn_upload_state = switch state {
    case nil, .pendingUpload: VN_UPLOAD_PENDING
    case .uploading: VN_UPLOAD_UPLOADING
    case .uploadFailed: VN_UPLOAD_FAILED
    case .uploaded: VN_UPLOAD_UPLOADED
    }
    return Int32(value.rawValue)
}

@c @implementation public func vn_uploader_wait(_ uploader: OpaquePointer?, _ timeoutMs: Int32, _ outState: UnsafeMutablePointer<Int32>?) -> Int32 {
    withUploader(uploader) { handle in
        let state = handle.uploader.wait(timeout: timeoutMs < 0 ? nil : Double(timeoutMs) / 1000)
        outState?.pointee = cState(state)
    }
}

@c @implementation public func vn_uploader_copy_result(_ uploader: OpaquePointer?, _ outPayloadJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outPayloadJSON?.pointee = nil
    return withUploader(uploader) { (handle) throws(VoiceNoteError) in
        switch handle.uploader.state {
        case .uploaded(let payload): try required(outPayloadJSON, "out_payload_json").pointee = try ownedCString(payload.json())
        case .uploadFailed(let error): throw error
        case nil, .pendingUpload, .uploading: throw VoiceNoteError(.misuse, "no upload has ended")
        }
    }
}

@c @implementation public func vn_uploader_copy_content_uri(_ uploader: OpaquePointer?, _ outURI: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outURI?.pointee = nil
    return withUploader(uploader) { (handle) throws(VoiceNoteError) in
        let out = try required(outURI, "out_uri")
        guard let uri = handle.uploader.contentURI else {
            throw VoiceNoteError(.notFound, "no URL is reserved (the Matrix and tus modes reserve one as their upload starts)")
        }
        out.pointee = try ownedCString(uri)
    }
}

extension UploadState: CEventConvertible {
    func fill(_ cEvent: inout vn_upload_event, _ memory: CEventMemory) {
        cEvent.state = cState(self)
        switch self {
        case .pendingUpload: break
        case .uploading(let progress): cEvent.progress = progress
        case .uploadFailed(let error): memory.failure(error, status: &cEvent.status, message: &cEvent.message)
        case .uploaded(let payload):
            cEvent.progress = 1
            cEvent.payload_json = memory.string(payload.json())
        }
    }
}
