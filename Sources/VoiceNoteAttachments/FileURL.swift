import VoiceNoteCore

/// `file://` URLs of local attachments (RFC 8089): made from a path, and turned back into one.
public enum FileURL {
    /// The `file://` URL of a path (a relative path is taken from the current directory); bytes other than
    /// unreserved characters and `/` are percent-encoded.
    public static func make(path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileSystem.currentDirectory() + "/" + path
        var encoded = "file://"
        for byte in absolute.utf8 {
            if isUnreserved(byte) || byte == UInt8(ascii: "/") {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// The path a `file://` URL names (host empty or `localhost`). - Throws: `.invalidArgument` for any other URL
    /// (a local attachment must be a file URL), a bad percent escape, or a path that is not UTF-8.
    public static func path(of url: String) throws(VoiceNoteError) -> String {
        let lowered = url.prefix(7).lowercased()
        guard lowered == "file://" else {
            throw VoiceNoteError(.invalidArgument, "a local attachment needs a file:// URL, not \(scheme(of: url))")
        }
        var rest = url.dropFirst(7)
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/") else { throw VoiceNoteError(.invalidArgument, "a file:// URL names no local path") }
        var bytes: [UInt8] = []
        var iterator = rest.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw VoiceNoteError(.invalidArgument, "a file:// URL has a bad percent escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let path = String(validating: bytes, as: UTF8.self), !bytes.contains(0) else {
            throw VoiceNoteError(.invalidArgument, "a file:// URL's path is not UTF-8 text")
        }
        return path
    }

    private static func scheme(of url: String) -> String {
        guard let colon = url.firstIndex(of: ":") else { return "a relative reference" }
        return "a \(url[..<colon].prefix(16)): URL"
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
