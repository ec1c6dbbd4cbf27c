/// `file://` URLs (RFC 8089) of local files (attachments, player locations): made from a path, and turned back
/// into one.
public enum FileURL {
    /// The `file://` URL of a path (a relative path is taken from the current directory); bytes other than
    /// unreserved characters and `/` are percent-encoded.
    public static func make(path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileSystem.currentDirectory() + "/" + path
        return "file://" + PercentEncoding.encode(absolute, keepingSlashes: true)
    }

    /// The path a `file://` URL names (host empty or `localhost`). - Throws: `.invalidArgument` for any other URL,
    /// another host, a bad percent escape, or a path that is not UTF-8.
    public static func path(of url: String) throws(VoiceNoteError) -> String {
        let lowered = url.prefix(7).lowercased()
        guard lowered == "file://" else {
            throw VoiceNoteError(.invalidArgument, "a local file needs a file:// URL, not \(scheme(of: url))")
        }
        var rest = url.dropFirst(7)
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/") else {
            throw VoiceNoteError(.invalidArgument, "a file:// URL names another host or no path; only local files are read")
        }
        guard let bytes = PercentEncoding.decode(rest) else {
            throw VoiceNoteError(.invalidArgument, "a file:// URL has a bad percent escape")
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
}
