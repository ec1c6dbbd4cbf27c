import VoiceNoteCore

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
