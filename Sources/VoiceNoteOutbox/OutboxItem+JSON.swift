import VoiceNoteCore
import VoiceNoteJSON

extension OutboxItem {
    /// The item as a JSON object (docs/outbox.md): `id`, `state`, `path`, `attempts`, `key`, `endpoint`, `mode`, and
    /// when known
    /// `reserved`, `error` (`{"status": "VN_E_…", "message": …, "http": nnn}`), `payload`, `uploaded`.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .integer(id)), ("state", .string(state.rawValue)), ("path", .string(path)),
            ("attempts", .integer(Int64(attempts))), ("key", .string(key)),
            ("endpoint", .string(destination.endpoint)), ("mode", .string(destination.mode.rawValue)),
        ]
        if let reserved { members.append(("reserved", .string(reserved))) }
        if let lastError {
            var error: [(String, JSONValue)] = [("status", .string(lastError.status.name.description)), ("message", .string(lastError.message))]
            if let code = lastError.httpCode { error.append(("http", .integer(Int64(code)))) }
            members.append(("error", .object(JSONObject(error))))
        }
        if let payload { members.append(("payload", .object(payload.object))) }
        if let uploaded { members.append(("uploaded", .object(uploaded.object))) }
        return .object(JSONObject(members))
    }

    /// A list of items as a JSON array.
    public static func json(_ items: [OutboxItem], indent: Int = 0) -> String {
        (try? JSONValue.array(items.map(\.jsonValue)).text(indent: indent)) ?? "[]"
    }
}
