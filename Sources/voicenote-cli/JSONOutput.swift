import VoiceNoteJSON

/// The CLI's JSON output goes through the library's one JSON layer (jansson escapes every string); these helpers
/// only shape the CLI's own data.
extension JSONValue {
    /// A number of the CLI's own data: a real, or null when it is not finite (JSON has no NaN).
    static func number(_ value: Double) -> JSONValue { value.isFinite ? .real(value) : .null }

    /// A count or size.
    static func count<Integer: BinaryInteger>(_ value: Integer) -> JSONValue { .integer(Int64(clamping: value)) }

    /// An object with keys in the given order.
    static func members(_ members: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(members)) }

    /// The compact text. Values built with the helpers above are always finite, so it never fails.
    var line: String { (try? text()) ?? "null" }
}
