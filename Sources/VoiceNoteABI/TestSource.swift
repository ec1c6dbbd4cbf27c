import CVoiceNote
import VoiceNoteCore

@c @implementation public func vn_test_source_create(_ loop: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        out.pointee = Handles.make(TestEventSource(dispatcher: try dispatcher(for: loop)))
    }
}

@c @implementation public func vn_test_source_subscribe(
    _ source: OpaquePointer?, _ callback: vn_test_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ outId: UnsafeMutablePointer<vn_subscription_id>?
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let source = try Handles.get(source, as: TestEventSource.self, "source")
        try subscribeC(source.events, callback, userData, release, outId) { event, subscriber in
            event.withCEvent { subscriber.function(subscriber.userData, $0) }
        }
    }
}

@c @implementation public func vn_test_source_start(_ source: OpaquePointer?, _ count: UInt64, _ intervalUs: UInt32) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try Handles.get(source, as: TestEventSource.self, "source").start(count: count, intervalMicroseconds: intervalUs)
    }
}

@c @implementation public func vn_test_source_stop(_ source: OpaquePointer?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try Handles.get(source, as: TestEventSource.self, "source").stop()
    }
}

@c @implementation public func vn_test_source_emit(_ source: OpaquePointer?, _ count: UInt64) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try Handles.get(source, as: TestEventSource.self, "source").emit(count: count)
    }
}

@c @implementation public func vn_test_source_fired(_ source: OpaquePointer?, _ outCount: UnsafeMutablePointer<UInt64>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let source = try Handles.get(source, as: TestEventSource.self, "source")
        try required(outCount, "out_count").pointee = source.fired
    }
}

@c @implementation public func vn_test_source_destroy(_ source: OpaquePointer?) {
    Handles.remove(source, as: TestEventSource.self)?.close()
}

extension TestEvent: CEventConvertible {
    func fill(_ cEvent: inout vn_test_event, _ memory: CEventMemory) {
        cEvent.sequence = sequence
        cEvent.from_library_thread = fromLibraryThread ? 1 : 0
    }
}
