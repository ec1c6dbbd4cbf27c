import VoiceNoteCore

/// The bounds every JSON input is checked against before jansson sees it: its size and how deeply it nests.
public struct JSONLimits: Sendable, Equatable {
    /// The most bytes accepted; more is `.tooLarge` without parsing.
    public var maximumBytes: Int
    /// The deepest nesting of arrays and objects accepted; deeper is `.format` without parsing.
    public var maximumDepth: Int

    /// Limits for one input.
    public init(maximumBytes: Int, maximumDepth: Int = JSONLimits.defaultDepth) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
    }

    /// Nesting deeper than this is refused everywhere (real payloads and message lists nest fewer than 10 levels;
    /// the bound keeps jansson's and our own recursion shallow on any thread's stack).
    public static let defaultDepth = 64
    /// An attachment payload: 1 MiB.
    public static let payload = JSONLimits(maximumBytes: 1 << 20)
    /// A list of messages: 64 MiB.
    public static let messages = JSONLimits(maximumBytes: 64 << 20)

    /// Checks `bytes` against the limits: `.tooLarge` for size, `.format` for depth. The depth scan skips strings
    /// (with their escapes), so brackets inside text do not count.
    func check(_ bytes: UnsafeRawBufferPointer, what: String) throws(VoiceNoteError) {
        guard bytes.count <= maximumBytes else {
            throw VoiceNoteError(.tooLarge, "\(what) is \(bytes.count) bytes, over the limit of \(maximumBytes)")
        }
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                guard depth <= maximumDepth else {
                    throw VoiceNoteError(.format, "\(what) nests deeper than \(maximumDepth) levels")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
    }
}
