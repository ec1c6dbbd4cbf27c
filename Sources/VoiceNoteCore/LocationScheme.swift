/// What a location string is by its form: a URL (`scheme://…`) or a path. One rule for every entry point, so a
/// scheme voicenote does not fetch (`mxc://`, `content://`, `s3://`) gets one answer everywhere, naming it.
public enum LocationScheme {
    /// The schemes voicenote reads itself: local files, and http(s) through its network layer.
    public static let fetched: Set<String> = ["file", "http", "https"]

    /// The lower-case scheme of `text` when it is written as a URL (`scheme://…`, RFC 3986's scheme characters),
    /// else nil: a path.
    public static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
              text[text.index(after: colon)...].hasPrefix("//") else { return nil }
        let name = text[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return name.lowercased()
    }

    /// `.unsupported` naming the scheme when `text` is a URL of a scheme voicenote does not fetch.
    public static func requireFetched(_ text: String) throws(VoiceNoteError) {
        if let scheme = scheme(of: text), !fetched.contains(scheme) {
            throw VoiceNoteError(.unsupported, "\(scheme):// locations are not fetched by voicenote (only file, http and https); resolve it to an http(s) URL first")
        }
    }
}
