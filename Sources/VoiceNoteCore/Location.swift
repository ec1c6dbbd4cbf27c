/// Where a note is: a local file or an http(s) URL — the one parser of the text a host gives for a location (a
/// path, a `file://` URL, an `http(s)://` URL). Every entry point (the C API, the CLI, the queue's data sources)
/// parses the text here once, and everything downstream (the player, the waveform batch, the opener
/// `RemoteMedia.open`) takes the parsed value.
///
/// The rules, in order:
/// - empty text, or text holding a NUL byte (C would see a shorter string), is `.invalidArgument`;
/// - text that begins with a URL scheme (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`, then `:`) is a
///   URL, whatever follows: `file:` is a local file (`FileURL.path(of:)`: host empty or `localhost`, percent
///   escapes decoded), `http:` and `https:` are remote (`init(url:)`), any other scheme (`ftp:`, `mxc:`, `data:`,
///   `javascript:`…) is `.unsupported`, naming it. Schemes are matched without regard to case;
/// - anything else is a path, absolute or relative to the working directory, taken as it is. As RFC 3986 says of
///   relative references, a relative path whose first segment holds a colon is written with `./` in front: a file
///   named `a://b` is `./a://b` (`a://b` alone is a URL of the scheme `a`, refused).
public enum Location: Hashable, Sendable {
    /// A local file: its `path` (decoded from a `file://` URL, else the text itself) and the `text` as given.
    case file(path: String, text: String)
    /// An `http://` or `https://` URL with a host, as given.
    case remote(url: String)

    /// The schemes voicenote reads itself: local files, and http(s) through its network layer.
    public static let fetched: Set<String> = ["file", "http", "https"]

    /// Parses a location (see the type's rules).
    /// - Throws: `.invalidArgument` for empty text, a NUL byte, a `file://` URL of another host or with a bad
    ///   escape, an http(s) URL without a host or with spaces or control characters; `.unsupported` for another
    ///   scheme.
    public init(_ text: String) throws(VoiceNoteError) {
        guard !text.isEmpty else { throw VoiceNoteError(.invalidArgument, "the location is empty") }
        guard !text.utf8.contains(0) else { throw VoiceNoteError(.invalidArgument, "the location holds a NUL byte") }
        switch Self.scheme(of: text) {
        case nil: self = .file(path: text, text: text)
        case "file": self = .file(path: try FileURL.path(of: text), text: text)
        case "http", "https": self = try Location(url: text)
        case let scheme?:
            let written = text.utf8.dropFirst(scheme.utf8.count + 1).starts(with: "//".utf8) ? "\(scheme)://" : "\(scheme):"
            throw VoiceNoteError(.unsupported, "\(written) locations are not fetched by voicenote (only file, http and https); resolve it to an http(s) URL first (a relative path with a colon in its first part is written ./path)")
        }
    }

    /// An http(s) URL only: `.remote(url:)`.
    /// - Throws: `.invalidArgument` (the URL redacted in the message) for anything but an `http://` or `https://`
    ///   URL with a host and without spaces or control characters.
    public init(url: String) throws(VoiceNoteError) {
        let lower = url.prefix(8).lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else {
            throw VoiceNoteError(.invalidArgument, "\(Self.redacted(url)) is not an http:// or https:// URL")
        }
        let rest = url.dropFirst(scheme.count)
        guard let hostStart = rest.first, hostStart != "/", hostStart != "?", hostStart != "#" else {
            throw VoiceNoteError(.invalidArgument, "\(Self.redacted(url)) names no host")
        }
        guard !url.utf8.contains(where: { $0 <= 32 || $0 == 127 }) else {
            throw VoiceNoteError(.invalidArgument, "\(Self.redacted(url)) holds spaces or control characters")
        }
        self = .remote(url: url)
    }

    /// The path of a location that must be a local file (the calls that read files only).
    /// - Throws: as `init(_:)`; `.unsupported` for an http(s) URL (read through a URL source instead).
    public static func localPath(of text: String) throws(VoiceNoteError) -> String {
        switch try Location(text) {
        case .file(let path, _): return path
        case .remote(let url):
            throw VoiceNoteError(.unsupported, "\(redacted(url)) is read as a URL source, not as a file")
        }
    }

    /// The text as given: what the player's context and a queue's data source show.
    public var text: String {
        switch self {
        case .file(_, let text): text
        case .remote(let url): url
        }
    }

    /// Whether it is a local file (read again for a waveform's ranges without the network).
    public var isFile: Bool {
        if case .file = self { true } else { false }
    }

    /// The lower-case scheme `text` begins with (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`, then
    /// `:`), else nil.
    public static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return name.lowercased()
    }

    /// `url` without its query and fragment, and without a user:password part: what messages show (signed CDN
    /// URLs carry secrets there).
    public static func redacted(_ url: String) -> String {
        var text = Substring(url)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") {
            let authorityStart = text.index(colon, offsetBy: 3)
            let rest = text[authorityStart...]
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                text = text[..<authorityStart] + rest[rest.index(after: at)...]
            }
        }
        return String(text)
    }
}
