import CVoiceNote
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteOutbox

@c @implementation public func vn_outbox_create(
    _ directory: UnsafePointer<CChar>?, _ endpoint: UnsafePointer<CChar>?, _ options: OpaquePointer?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let settings = try UploadOptionsHandle.value(of: options, or: UploadSettings())
        let outbox = try Outbox(directory: try nonEmptyString(directory, "directory"),
                                endpoint: try utf8String(endpoint, "endpoint"), upload: settings.options,
                                dispatcher: settings.dispatcher)
        out.pointee = Handles.make(outbox)
    }
}

@c @implementation public func vn_outbox_destroy(_ outbox: OpaquePointer?) {
    Handles.remove(outbox, as: Outbox.self)?.close()
}

/// Runs a call on the outbox behind a handle.
private func withOutbox(_ outbox: OpaquePointer?, _ body: (Outbox) throws(VoiceNoteError) -> Void) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try body(try Handles.get(outbox, as: Outbox.self, "outbox")) }
}

@c @implementation public func vn_outbox_set_retry(_ outbox: OpaquePointer?, _ base: Double, _ cap: Double) -> Int32 {
    withOutbox(outbox) { (box) throws(VoiceNoteError) in
        var options = OutboxOptions()
        try options.setRetry(base: base, cap: cap)
        box.setOptions(options)
    }
}

@c @implementation public func vn_outbox_subscribe(
    _ outbox: OpaquePointer?, _ callback: vn_outbox_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ outId: UnsafeMutablePointer<vn_subscription_id>?
) -> Int32 {
    withOutbox(outbox) { (box) throws(VoiceNoteError) in
        try subscribeC(box.events, callback, userData, release, outId) { event, subscriber in
            event.withCEvent { subscriber.function(subscriber.userData, $0) }
        }
    }
}

@c @implementation public func vn_outbox_start(_ outbox: OpaquePointer?) -> Int32 {
    withOutbox(outbox) { (box) throws(VoiceNoteError) in try box.start() }
}

@c @implementation public func vn_outbox_add(
    _ outbox: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ given: OpaquePointer?, _ outId: UnsafeMutablePointer<Int64>?
) -> Int32 {
    withOutbox(outbox) { (box) throws(VoiceNoteError) in
        let location = try nonEmptyString(path, "path")
        let payload: VoiceRecordingPayload? = given == nil ? nil : try PayloadHandle.value(of: given, "payload")
        let id = try box.add(path: try LocalAttachment.path(of: location), payload: payload)
        outId?.pointee = id
    }
}

@c @implementation public func vn_outbox_acknowledge(_ outbox: OpaquePointer?, _ id: Int64) -> Int32 {
    withOutbox(outbox) { (box) throws(VoiceNoteError) in try box.acknowledge(id) }
}

@c @implementation public func vn_outbox_retry(_ outbox: OpaquePointer?, _ id: Int64) -> Int32 {
    withOutbox(outbox) { (box) throws(VoiceNoteError) in try box.retry(id) }
}

@c @implementation public func vn_outbox_cancel(_ outbox: OpaquePointer?, _ id: Int64) -> Int32 {
    withOutbox(outbox) { (box) throws(VoiceNoteError) in try box.cancel(id) }
}

@c @implementation public func vn_outbox_copy_items(_ outbox: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    return withOutbox(outbox) { (box) throws(VoiceNoteError) in
        let out = try required(outJSON, "out_json")
        out.pointee = try ownedCString(OutboxItem.json(try box.items()))
    }
}

extension vn_outbox_event: CEventStruct {}

extension OutboxEvent: CEventConvertible {
    func fill(_ cEvent: inout vn_outbox_event, _ memory: CEventMemory) {
        func failure(_ error: VoiceNoteError) {
            memory.failure(error, status: &cEvent.status, message: &cEvent.message)
            cEvent.http_code = Int32(clamping: error.httpCode ?? 0)
        }
        switch self {
        case .added(let id):
            cEvent.kind = Int32(VN_OUTBOX_EVENT_ADDED.rawValue)
            cEvent.id = id
        case .sending(let id, let progress):
            cEvent.kind = Int32(VN_OUTBOX_EVENT_SENDING.rawValue)
            cEvent.id = id
            cEvent.progress = progress
        case .waiting(let id, let error, let retryIn):
            cEvent.kind = Int32(VN_OUTBOX_EVENT_WAITING.rawValue)
            cEvent.id = id
            cEvent.retry_in = retryIn
            failure(error)
        case .failed(let id, let error):
            cEvent.kind = Int32(VN_OUTBOX_EVENT_FAILED.rawValue)
            cEvent.id = id
            failure(error)
        case .uploaded(let id, let payload):
            cEvent.kind = Int32(VN_OUTBOX_EVENT_UPLOADED.rawValue)
            cEvent.id = id
            cEvent.payload_json = memory.string(payload.json())
        case .removed(let id):
            cEvent.kind = Int32(VN_OUTBOX_EVENT_REMOVED.rawValue)
            cEvent.id = id
        }
    }
}
