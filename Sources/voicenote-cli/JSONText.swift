/// Just enough JSON output for the CLI's own data (flat objects, arrays of numbers), escaped correctly.
/// Payload JSON (attachments) goes through jansson in the library, not this.
enum JSONText {
    case string(String)
    case number(Double)
    case integer(Int)
    case bool(Bool)
    case array([JSONText])
    /// Already-encoded JSON text, inserted as is.
    case raw(String)

    /// An object with keys in the given order.
    static func object(_ members: [(String, JSONText)]) -> String {
        "{" + members.map { "\(JSONText.string($0.0).text):\($0.1.text)" }.joined(separator: ",") + "}"
    }

    /// The value as JSON text.
    var text: String {
        switch self {
        case .string(let value): return "\"" + value.unicodeScalars.map(Self.escape).joined() + "\""
        case .number(let value): return value.isFinite ? "\(value)" : "null"
        case .integer(let value): return "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .array(let values): return "[" + values.map(\.text).joined(separator: ",") + "]"
        case .raw(let text): return text
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            guard scalar.value < 0x20 else { return String(scalar) }
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
