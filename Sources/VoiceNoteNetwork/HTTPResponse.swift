/// The status and headers of the response a transfer got (after redirects).
struct HTTPResponse: Sendable {
    /// The HTTP status code.
    var code: Int
    /// Headers by lower-case name (the last of repeated ones).
    var headers: [String: String]

    /// `Content-Length`, when given and valid.
    var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil } }

    /// `Content-Range: bytes first-last/total` of a 206: the first byte and the total (nil when `*`).
    var contentRange: (first: Int64, total: Int64?)? {
        guard let value = headers["content-range"], value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"),
              let first = Int64(spec[..<dash].trimmingSpaces), first >= 0 else { return nil }
        let total = Int64(spec[spec.index(after: slash)...].trimmingSpaces)
        return (first, total.flatMap { $0 > 0 ? $0 : nil })
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
