import CVoiceNote
import VoiceNoteCore

/// The object behind a `vn_event_loop *`.
final class EventLoopHandle: Sendable {
    let loop: EventLoop
    init(loop: EventLoop) { self.loop = loop }
}

@c @implementation public func vn_event_loop_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        out.pointee = Handles.make(EventLoopHandle(loop: try EventLoop()))
    }
}

@c @implementation public func vn_event_loop_destroy(_ loop: OpaquePointer?) {
    Handles.remove(loop, as: EventLoopHandle.self)?.loop.close()
}

@c @implementation public func vn_event_loop_fd(_ loop: OpaquePointer?) -> Int32 {
    var descriptor: Int32 = -1
    let status = abiCall { () throws(VoiceNoteError) in
        descriptor = try Handles.get(loop, as: EventLoopHandle.self, "loop").loop.fileDescriptor
    }
    return status == 0 ? descriptor : status
}

@c @implementation public func vn_event_loop_dispatch(_ loop: OpaquePointer?, _ dispatched: UnsafeMutablePointer<Int>?) -> Int32 {
    dispatched?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let count = try Handles.get(loop, as: EventLoopHandle.self, "loop").loop.dispatch()
        dispatched?.pointee = count
    }
}

@c @implementation public func vn_event_loop_wait(
    _ loop: OpaquePointer?, _ timeoutMs: Int32, _ pending: UnsafeMutablePointer<Int32>?
) -> Int32 {
    pending?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let any = try Handles.get(loop, as: EventLoopHandle.self, "loop").loop.wait(timeoutMilliseconds: timeoutMs)
        pending?.pointee = any ? 1 : 0
    }
}

/// The dispatcher for an object created with an optional `vn_event_loop *`: the loop, or the event thread.
func dispatcher(for loop: OpaquePointer?) throws(VoiceNoteError) -> any EventDispatcher {
    guard loop != nil else { return EventThread.shared }
    return try Handles.get(loop, as: EventLoopHandle.self, "loop").loop
}
