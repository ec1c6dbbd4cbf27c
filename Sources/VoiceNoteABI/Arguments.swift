import VoiceNoteAudio
import VoiceNoteCore

// Checks of the arguments C passes: pointers, strings and numbers, each failing with `.invalidArgument` that
// names the argument (and the allowed range).

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

/// A C `int` flag that must be 0 or 1 (`.invalidArgument` naming `name` otherwise): other values are refused rather
/// than read as true, so a caller's wrong argument (a count, a status) is found at once.
func flag(_ value: Int32, _ name: StaticString) throws(VoiceNoteError) -> Bool {
    guard value == 0 || value == 1 else { throw VoiceNoteError(.invalidArgument, "\(name) is \(value); 0 or 1") }
    return value == 1
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

/// A required, non-empty C string.
func nonEmptyString(_ text: UnsafePointer<CChar>?, _ name: StaticString) throws(VoiceNoteError) -> String {
    let string = try utf8String(text, name)
    guard !string.isEmpty else { throw VoiceNoteError(.invalidArgument, "\(name) is empty") }
    return string
}

/// An optional stream role (`media.role`): NULL for none, else 1 to 64 bytes of printable ASCII
/// (`DeviceSelection.isValidRole`); `.invalidArgument` otherwise.
func streamRole(_ text: UnsafePointer<CChar>?) throws(VoiceNoteError) -> String? {
    guard let text else { return nil }
    let role = try utf8String(text, "role")
    guard DeviceSelection.isValidRole(role) else {
        throw VoiceNoteError(.invalidArgument, "role \"\(role)\" is not 1 to 64 bytes of printable ASCII")
    }
    return role
}

/// A host hook's answer as an error: nil for `VN_OK`; a negative status as itself, anything else as `.internal`,
/// with `what` saying which hook.
func hookFailure(_ status: Int32, _ what: String) -> VoiceNoteError? {
    guard status != Status.ok.rawValue else { return nil }
    let known = Status(rawValue: status).flatMap { $0 == .ok ? nil : $0 } ?? .internal
    return VoiceNoteError(known, "\(what) returned \(Status(rawValue: status).map { String(describing: $0.name) } ?? "status \(status)")")
}
