import VoiceNoteCore

/// Writing JSON. jansson escapes every string and key; the encoder walks the tree itself because jansson writes
/// reals with a fixed precision (3.1 becomes 3.1000000000000001), while a payload must come back as it went:
/// reals are written in Swift's shortest form that reads back to the same Double (3.1 stays 3.1, 1.0 stays 1.0).
extension JSONValue {
    /// The value as JSON text: compact, or pretty with `indent` spaces per level. - Throws: `.invalidArgument` for
    /// a real that is not finite (JSON has no NaN or infinity).
    public func text(indent: Int = 0) throws(VoiceNoteError) -> String {
        var output: [UInt8] = []
        try write(to: &output, indent: max(0, min(indent, 16)), level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(to output: inout [UInt8], indent: Int, level: Int) throws(VoiceNoteError) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .real(let value):
            guard value.isFinite else { throw VoiceNoteError(.invalidArgument, "JSON has no \(value)") }
            output.append(contentsOf: value.description.utf8)
        case .string(let value): try Jansson.appendQuoted(value, to: &output)
        case .array(let values):
            try Self.writeContainer(open: "[", close: "]", values, to: &output, indent: indent, level: level) { value, output throws(VoiceNoteError) in
                try value.write(to: &output, indent: indent, level: level + 1)
            }
        case .object(let object):
            try Self.writeContainer(open: "{", close: "}", object.members, to: &output, indent: indent, level: level) { member, output throws(VoiceNoteError) in
                try Jansson.appendQuoted(member.key, to: &output)
                output.append(contentsOf: (indent > 0 ? ": " : ":").utf8)
                try member.value.write(to: &output, indent: indent, level: level + 1)
            }
        }
    }

    private static func writeContainer<Item>(open: Unicode.Scalar, close: Unicode.Scalar, _ items: [Item], to output: inout [UInt8],
                                             indent: Int, level: Int,
                                             _ writeItem: (Item, inout [UInt8]) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        output.append(UInt8(open.value))
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(&output, indent: indent, level: level + 1)
            try writeItem(item, &output)
        }
        if !items.isEmpty { newline(&output, indent: indent, level: level) }
        output.append(UInt8(close.value))
    }

    private static func newline(_ output: inout [UInt8], indent: Int, level: Int) {
        guard indent > 0 else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }
}
