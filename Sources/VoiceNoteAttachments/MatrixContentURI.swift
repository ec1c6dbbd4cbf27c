#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// An `mxc://<server name>/<media id>` URI, checked against the Matrix spec's grammar, because both parts are pasted
/// into a download URL's path (`…/media/download/<server name>/<media id>`) that goes out with the client's token:
/// a part such as `..` would name another endpoint. The server name is a DNS name (dot-separated labels of letters,
/// digits and `-`, none empty, none starting or ending with `-`), a dotted IPv4 address or an IPv6 literal in
/// brackets, with an optional port 1…65535; the media id is 1…255 of `A-Z a-z 0-9 _ -`. Nothing else passes: no
/// percent-escapes, no empty parts, nothing after the media id.
struct MatrixContentURI {
    let server: String
    let mediaID: String

    /// The longest server name and media id accepted (the spec's DNS name bound; media ids are far shorter).
    static let maximumPartBytes = 255

    /// - Throws: `.invalidArgument` for text that is not such a URI.
    init(_ text: String) throws(VoiceNoteError) {
        let scheme = "mxc://"
        guard text.hasPrefix(scheme) else { throw VoiceNoteError(.invalidArgument, "not an mxc:// URI: \(text)") }
        let rest = text.utf8.dropFirst(scheme.utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
            throw VoiceNoteError(.invalidArgument, "no media id in \(text)")
        }
        let server = rest[..<slash], mediaID = rest[rest.index(after: slash)...]
        guard Self.isServerName(server), Self.isMediaID(mediaID) else {
            throw VoiceNoteError(.invalidArgument, "not an mxc://<server name>/<media id> URI: \(text)")
        }
        self.server = String(decoding: server, as: UTF8.self)
        self.mediaID = String(decoding: mediaID, as: UTF8.self)
    }

    /// `[A-Za-z0-9_-]+`, at most 255 bytes.
    static func isMediaID(_ id: Substring.UTF8View) -> Bool {
        (1...maximumPartBytes).contains(id.count)
            && id.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// `host[:port]`, the host a DNS name, an IPv4 address or a bracketed IPv6 literal.
    static func isServerName(_ name: Substring.UTF8View) -> Bool {
        guard (1...maximumPartBytes).contains(name.count) else { return false }
        if name.first == UInt8(ascii: "[") {
            guard let close = name.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let after = name[name.index(after: close)...]
            return isIPv6(name[name.index(after: name.startIndex)..<close]) && isOptionalPort(after)
        }
        let colon = name.firstIndex(of: UInt8(ascii: ":")) ?? name.endIndex
        return isHostname(name[..<colon]) && isOptionalPort(name[colon...])
    }

    /// Empty, or `:` then 1…5 digits whose value is 1…65535.
    private static func isOptionalPort(_ text: Substring.UTF8View) -> Bool {
        guard let colon = text.first else { return true }
        let digits = text.dropFirst()
        guard colon == UInt8(ascii: ":"), (1...5).contains(digits.count), digits.allSatisfy(isDigit) else {
            return false
        }
        let port = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (1...65535).contains(port)
    }

    /// A DNS name, or an IPv4 address when its last label is all digits (no top-level domain is).
    private static func isHostname(_ host: Substring.UTF8View) -> Bool {
        let labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.allSatisfy(isDigit) { return isAddress(host, family: AF_INET) }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
        }
    }

    /// An IPv6 address as the spec writes it (hex digits, `:` and `.`), which the C library also reads as one.
    private static func isIPv6(_ address: Substring.UTF8View) -> Bool {
        let hexDigits = UInt8(ascii: "a")...UInt8(ascii: "f")
        return (2...45).contains(address.count)
            && address.allSatisfy { isDigit($0) || hexDigits.contains($0 | 0x20) || $0 == UInt8(ascii: ":")
                || $0 == UInt8(ascii: ".") }
            && isAddress(address, family: AF_INET6)
    }

    /// Whether `inet_pton` reads `text` as an address of `family` (strict: IPv4 as four decimal parts).
    private static func isAddress(_ text: Substring.UTF8View, family: Int32) -> Bool {
        var buffer = in6_addr()
        return String(decoding: text, as: UTF8.self).withCString { inet_pton(family, $0, &buffer) } == 1
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
