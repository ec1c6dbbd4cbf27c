import CJansson
import VoiceNoteCore

/// A parsed JSON text, read in place: large inputs (a channel's messages) are walked through `JSONNode` views
/// without copying every value into Swift, and `value` makes a `JSONValue` of any part.
public final class JSONDocument: @unchecked Sendable {
    private let root: UnsafeMutablePointer<json_t>

    /// Parses one JSON value. - Throws: `.tooLarge` over the size limit and `.format` past the depth limit (both
    /// before parsing); `.format` for invalid JSON or UTF-8, duplicate keys, integers beyond Int64 and reals beyond
    /// Double, with jansson's reason and position; `what` names the input in messages.
    public init(parsing bytes: UnsafeRawBufferPointer, limits: JSONLimits, what: String) throws(VoiceNoteError) {
        root = try Self.load(bytes, limits: limits, what: what)
    }

    /// Parses UTF-8 text; see `init(parsing:limits:what:)`.
    public init(parsing text: String, limits: JSONLimits, what: String) throws(VoiceNoteError) {
        var text = text
        let loaded = text.withUTF8 { bytes in
            Result { () throws(VoiceNoteError) in try Self.load(UnsafeRawBufferPointer(bytes), limits: limits, what: what) }
        }
        root = try loaded.get()
    }

    private static func load(_ bytes: UnsafeRawBufferPointer, limits: JSONLimits,
                             what: String) throws(VoiceNoteError) -> UnsafeMutablePointer<json_t> {
        try limits.check(bytes, what: what)
        return try Jansson.parse(bytes, what: what)
    }

    deinit { Jansson.release(root) }

    /// The top-level value.
    public var top: JSONNode { JSONNode(document: self, node: root) }
}

/// One value inside a `JSONDocument`, valid as long as the node (which keeps its document alive).
public struct JSONNode: @unchecked Sendable {
    let document: JSONDocument
    let node: UnsafeMutablePointer<json_t>

    /// The string, when this is one.
    public var string: String? { Jansson.kind(node) == JSON_STRING ? Jansson.string(node) : nil }

    /// Whether this is a string equal to `text` (compared in place).
    public func isString(_ text: String) -> Bool { Jansson.kind(node) == JSON_STRING && Jansson.string(node, equals: text) }

    /// Whether this is an object.
    public var isObject: Bool { Jansson.kind(node) == JSON_OBJECT }

    /// Whether this is an array.
    public var isArray: Bool { Jansson.kind(node) == JSON_ARRAY }

    /// An object's member, when this is an object that has it.
    public subscript(key: String) -> JSONNode? {
        guard isObject, let member = Jansson.member(node, key) else { return nil }
        return JSONNode(document: document, node: member)
    }

    /// An array's elements in order (empty when this is not an array).
    public var elements: [JSONNode] {
        guard isArray else { return [] }
        return (0..<Jansson.count(node)).compactMap { Jansson.element(node, $0).map { JSONNode(document: document, node: $0) } }
    }

    /// The value, copied into Swift.
    public var value: JSONValue { Self.value(of: node) }

    private static func value(of node: UnsafeMutablePointer<json_t>) -> JSONValue {
        switch Jansson.kind(node) {
        case JSON_OBJECT:
            var members: [(String, JSONValue)] = []
            Jansson.forEachMember(node) { key, member in members.append((key, value(of: member))) }
            return .object(JSONObject(members))
        case JSON_ARRAY: return .array((0..<Jansson.count(node)).compactMap { Jansson.element(node, $0).map(value(of:)) })
        case JSON_STRING: return .string(Jansson.string(node))
        case JSON_INTEGER: return .integer(Jansson.integer(node))
        case JSON_REAL: return .real(Jansson.real(node))
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        default: return .null
        }
    }
}

extension JSONValue {
    /// Parses one JSON value into Swift; see `JSONDocument.init(parsing:limits:what:)` for the errors.
    public init(parsing text: String, limits: JSONLimits, what: String) throws(VoiceNoteError) {
        self = try JSONDocument(parsing: text, limits: limits, what: what).top.value
    }
}
