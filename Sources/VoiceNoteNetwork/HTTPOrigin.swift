/// The origin of an http(s) URL (scheme, host, port; RFC 6454): where credentials may go. Custom headers (tokens,
/// `Authorization`) are sent only to the origin that was asked; a redirect elsewhere is followed without them.
struct HTTPOrigin: Equatable, Sendable {
    /// "http" or "https", lower-case.
    let scheme: String
    /// The host, lower-case (an IPv6 literal keeps its brackets).
    let host: String
    /// The port, the scheme's default when the URL names none.
    let port: Int

    /// The origin of `url`; nil when it is not an absolute http(s) URL with a host.
    init?(_ url: String) {
        let lower = url.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else { return nil }
        let rest = url.dropFirst(scheme.count + 3)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port = scheme == "https" ? 443 : 80
        let portColon: Substring.Index?
        if authority.hasPrefix("[") {
            portColon = authority.firstIndex(of: "]").flatMap { end in authority[end...].firstIndex(of: ":") }
        } else {
            portColon = authority.lastIndex(of: ":")
        }
        if let colon = portColon {
            host = authority[..<colon]
            let digits = authority[authority.index(after: colon)...]
            if !digits.isEmpty {
                guard digits.count <= 5, let number = Int(digits), (1...65535).contains(number) else { return nil }
                port = number
            }
        }
        guard !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }
}
