import CShims
import Synchronization
import VoiceNoteCore

/// Runs the body of a fallible C function: maps a thrown `VoiceNoteError` to its status and records its message
/// as this thread's last error. No Swift error crosses the C boundary.
func abiCall(_ body: () throws(VoiceNoteError) -> Void) -> Int32 {
    do {
        try body()
        return Status.ok.rawValue
    } catch {
        recordLastError(error)
        return error.status.rawValue
    }
}

/// Stores `error` as this thread's last error message (`vn_last_error_message`).
func recordLastError(_ error: VoiceNoteError) {
    error.message.withCString { vnshim_set_last_error($0) }
}

/// Fails with `.invalidArgument` naming `name` when a required pointer argument is NULL.
func required<T>(_ pointer: T?, _ name: StaticString) throws(VoiceNoteError) -> T {
    guard let pointer else { throw VoiceNoteError(.invalidArgument, "\(name) is NULL") }
    return pointer
}

/// The table of live C handles: a handle is the address of its Swift object, valid while the table holds it.
/// Lets every entry point tell a NULL, destroyed or wrong-type handle from a live one (SQLite's safety check,
/// without reading freed memory).
enum Handles {
    private static let live = Mutex<[UInt: any AnyObject & Sendable]>([:])

    /// Registers `object` and returns its handle.
    static func make(_ object: some AnyObject & Sendable) -> OpaquePointer {
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        live.withLock { $0[address] = object }
        return OpaquePointer(bitPattern: address)!
    }

    /// The live object of type `T` behind `handle`; `.misuse` when it is NULL, destroyed or of another type.
    static func get<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type, _ name: StaticString) throws(VoiceNoteError) -> T {
        guard let handle else { throw VoiceNoteError(.misuse, "\(name) is NULL") }
        let object = live.withLock { $0[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))] }
        guard let typed = object as? T else { throw VoiceNoteError(.misuse, "\(name) is not a live \(name) handle (destroyed?)") }
        return typed
    }

    /// Removes the handle and returns its object, or nil when it is NULL, unknown or of another type.
    static func remove<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type) -> T? {
        guard let handle else { return nil }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return live.withLock { table -> T? in
            guard let typed = table[address] as? T else { return nil }
            table[address] = nil
            return typed
        }
    }
}
