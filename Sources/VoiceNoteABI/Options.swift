import VoiceNoteCore

/// The object behind an options handle (`vn_recorder_options *`, and the player's later): a value its setters change
/// under a lock, and that `create` of the object copies.
final class OptionsHandle<Value: Sendable>: Sendable {
    let value: Locked<Value>

    init(_ value: Value) {
        self.value = Locked(value)
    }

    /// A copy of the value behind `handle`, or `defaults` when the caller passed NULL for "the defaults".
    static func value(of handle: OpaquePointer?, or defaults: Value) throws(VoiceNoteError) -> Value {
        guard handle != nil else { return defaults }
        return try Handles.get(handle, as: Self.self, "options").value.withLock { $0 }
    }

    /// Applies one setter's `change` to the value behind `handle`; a change that throws leaves the value as it was.
    static func update(_ handle: OpaquePointer?, _ change: (inout Value) throws(VoiceNoteError) -> Void) -> Int32 {
        abiCall { () throws(VoiceNoteError) in
            try Handles.get(handle, as: Self.self, "options").value.withLock { (value) throws(VoiceNoteError) in
                var changed = value
                try change(&changed)
                value = changed
            }
        }
    }
}
