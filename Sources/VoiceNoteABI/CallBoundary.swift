import CShims
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

/// A required C string that must be valid UTF-8 (paths, names, configuration text); `.invalidArgument` otherwise.
/// A Swift string cannot carry other bytes: repaired, such a path would name another file (or none).
func utf8String(_ text: UnsafePointer<CChar>?, _ name: StaticString) throws(VoiceNoteError) -> String {
    guard let string = String(validatingCString: try required(text, name)) else {
        throw VoiceNoteError(.invalidArgument, "\(name) is not valid UTF-8")
    }
    return string
}

/// A `size_t` count from C, checked: Swift sees one above `Int.max` as negative, and `limit` bounds what the
/// function can sensibly allocate. `.invalidArgument` naming the allowed range otherwise.
func checkedCount(_ count: Int, _ name: StaticString, atMost limit: Int = Int.max) throws(VoiceNoteError) -> Int {
    guard count >= 0, count <= limit else {
        throw VoiceNoteError(.invalidArgument, "\(name) \(UInt(bitPattern: count)) is outside 0…\(limit)")
    }
    return count
}

/// The room a caller's `size_t` capacity gives: one above `Int.max` (Swift sees it as negative) is all the room
/// there could be, not a shortage.
func room(_ capacity: Int) -> Int {
    capacity < 0 ? Int.max : capacity
}

/// The table of live C handles. A handle is an opaque token, never a real address and never reused, so a NULL,
/// destroyed or wrong-type handle is told apart from a live one even after its memory was reused (SQLite's safety
/// check, made exact). Tokens look like aligned pointers so C code may store them as any `T *`.
enum Handles {
    private struct Table {
        var objects: [UInt: any AnyObject & Sendable] = [:]
        var lastToken: UInt = 0
    }
    private static let table = Locked(Table())
    /// Tokens start here, step 16: far from NULL, never a valid allocation this library made.
    private static let base: UInt = 0x7600_0000_0000

    /// Registers `object` and returns its new handle.
    static func make(_ object: some AnyObject & Sendable) -> OpaquePointer {
        let token = table.withLock { table -> UInt in
            table.lastToken += 1
            let token = base + table.lastToken << 4
            table.objects[token] = object
            return token
        }
        return OpaquePointer(bitPattern: token)!
    }

    /// The live object of type `T` behind `handle`; `.misuse` when it is NULL, destroyed or of another type.
    static func get<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type, _ name: StaticString) throws(VoiceNoteError) -> T {
        guard let handle else { throw VoiceNoteError(.misuse, "\(name) is NULL") }
        let object = table.withLock { $0.objects[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))] }
        guard let typed = object as? T else { throw VoiceNoteError(.misuse, "\(name) is not a live \(name) handle (destroyed?)") }
        return typed
    }

    /// Removes the handle and returns its object, or nil when it is NULL, unknown or of another type.
    static func remove<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type) -> T? {
        guard let handle else { return nil }
        let token = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return table.withLock { table -> T? in
            guard let typed = table.objects[token] as? T else { return nil }
            table.objects[token] = nil
            return typed
        }
    }
}
