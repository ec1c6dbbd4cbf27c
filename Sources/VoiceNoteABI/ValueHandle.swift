import VoiceNoteCore

/// The object behind a handle that is a value (options objects, `vn_payload *`): a value its setters change under
/// a lock, and that the calls using it copy.
final class ValueHandle<Value: Sendable>: Sendable {
    let value: Locked<Value>

    init(_ value: Value) {
        self.value = Locked(value)
    }

    /// A copy of the value behind `handle`, or `defaults` when the caller passed NULL for "the defaults".
    static func value(of handle: OpaquePointer?, or defaults: Value) throws(VoiceNoteError) -> Value {
        guard handle != nil else { return defaults }
        return try value(of: handle, "options")
    }

    /// A copy of the value behind `handle`; `.misuse` naming `name` when it is NULL or destroyed.
    static func value(of handle: OpaquePointer?, _ name: StaticString) throws(VoiceNoteError) -> Value {
        try Handles.get(handle, as: Self.self, name).value.withLock { $0 }
    }

    /// Applies one setter's `change` to the options behind `handle`.
    static func update(_ handle: OpaquePointer?, _ change: (inout Value) throws(VoiceNoteError) -> Void) -> Int32 {
        update(handle, "options", change)
    }

    /// Applies one setter's `change` to the value behind `handle` (`.misuse` naming `name` for a NULL or destroyed
    /// one); a change that throws leaves the value as it was.
    static func update(_ handle: OpaquePointer?, _ name: StaticString,
                       _ change: (inout Value) throws(VoiceNoteError) -> Void) -> Int32 {
        abiCall { () throws(VoiceNoteError) in
            try Handles.get(handle, as: Self.self, name).value.withLock { (value) throws(VoiceNoteError) in
                var changed = value
                try change(&changed)
                value = changed
            }
        }
    }
}

/// The handle type of every options object (`vn_recorder_options *`, `vn_player_options *`, ...).
typealias OptionsHandle<Value: Sendable> = ValueHandle<Value>
