import CVoiceNote
import Testing
@testable import VoiceNoteABI

@Suite struct HandleMisuseTests {
    @Test func nullHandlesAreMisuseAndDestroyNullIsANoOp() {
        let misuse = VN_E_MISUSE.rawValue
        #expect(vn_test_source_start(nil, 1, 0) == misuse)
        #expect(vn_test_source_stop(nil) == misuse)
        #expect(vn_test_source_emit(nil, 1) == misuse)
        var count: UInt64 = 0
        #expect(vn_test_source_fired(nil, &count) == misuse)
        #expect(vn_test_source_subscribe(nil, { _, _ in }, nil, nil, nil) == misuse)
        #expect(vn_event_loop_fd(nil) == misuse)
        #expect(vn_event_loop_dispatch(nil, nil) == misuse)
        #expect(vn_event_loop_wait(nil, 0, nil) == misuse)
        vn_test_source_destroy(nil)
        vn_event_loop_destroy(nil)
    }

    @Test func nullOutParametersAreInvalidArguments() {
        #expect(vn_event_loop_create(nil) == VN_E_INVALID_ARG.rawValue)
        #expect(vn_test_source_create(nil, nil) == VN_E_INVALID_ARG.rawValue)
        var source: OpaquePointer?
        #expect(vn_test_source_create(nil, &source) == VN_OK.rawValue)
        defer { vn_test_source_destroy(source) }
        #expect(vn_test_source_fired(source, nil) == VN_E_INVALID_ARG.rawValue)
        #expect(vn_test_source_subscribe(source, nil, nil, nil, nil) == VN_E_INVALID_ARG.rawValue)
    }

    @Test func destroyedAndWrongTypeHandlesAreMisuse() {
        var loop: OpaquePointer?
        #expect(vn_event_loop_create(&loop) == VN_OK.rawValue)
        var source: OpaquePointer? = OpaquePointer(bitPattern: 1)
        // A loop handle is not a source handle.
        #expect(vn_test_source_emit(loop, 1) == VN_E_MISUSE.rawValue)
        vn_event_loop_destroy(loop)
        #expect(vn_event_loop_fd(loop) == VN_E_MISUSE.rawValue)
        // Creating with a destroyed loop fails and clears *out.
        #expect(vn_test_source_create(loop, &source) == VN_E_MISUSE.rawValue)
        #expect(source == nil)
        vn_event_loop_destroy(loop)  // second destroy: unknown handle, no effect
    }

    @Test func logHandlerRejectsUnknownLevels() {
        #expect(vn_log_set_handler(nil, nil, 0) == VN_E_INVALID_ARG.rawValue)
        #expect(vn_log_set_handler(nil, nil, 5) == VN_E_INVALID_ARG.rawValue)
        #expect(vn_log_set_handler(nil, nil, Int32(VN_LOG_DEBUG.rawValue)) == VN_OK.rawValue)
    }
}
