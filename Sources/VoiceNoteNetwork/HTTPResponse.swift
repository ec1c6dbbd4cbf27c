/// The status and headers of the response a transfer got (after redirects).
struct HTTPResponse: Sendable {
    /// The HTTP status code.
    var code: Int
    /// Headers by lower-case name (the last of repeated ones).
    var headers: [String: String]

    /// `Content-Length`, when given and valid.
    var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil } }

    /// `Content-Range: bytes first-last/total` of a 206: the first and last byte (inclusive, last ≥ first) and the
    /// total (nil when `*`; then last < total). Nil when absent or malformed.
    var contentRange: (first: Int64, last: Int64, total: Int64?)? {
        guard let value = headers["content-range"], value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"), dash < slash,
              let first = Int64(spec[..<dash].trimmingSpaces), first >= 0,
              let last = Int64(spec[spec.index(after: dash)..<slash].trimmingSpaces), last >= first else { return nil }
        let totalText = spec[spec.index(after: slash)...].trimmingSpaces
        guard totalText == "*" || Int64(totalText).map({ $0 > last }) == true else { return nil }
        return (first, last, Int64(totalText))
    }

    /// What identifies this version of the resource for `If-Range`: a strong `ETag`, else `Last-Modified`; nil
    /// when it has neither (a weak ETag cannot be used there).
    var validator: String? {
        if let tag = headers["etag"], tag.hasPrefix("\"") { return tag }
        return headers["last-modified"]
    }

    /// What `Accept-Ranges` says: true for `bytes`, false for `none`, nil when absent.
    var acceptsRanges: Bool? {
        guard let value = headers["accept-ranges"]?.lowercased() else { return nil }
        return value.contains("bytes") ? true : value == "none" ? false : nil
    }

    /// Collects one header line of libcurl's header callback; a status line starts a new response (a redirect's
    /// or a 100 Continue's headers are dropped).
    static func collect(_ line: String, into headers: inout [String: String]) {
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        headers[name] = String(line[line.index(after: colon)...].trimmingSpaces)
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }  // "\r\n" is one Character
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
