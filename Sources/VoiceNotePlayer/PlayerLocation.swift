import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources

/// What a player plays: a local file (a path or a `file://` URL), an http(s) URL, or a byte source the caller made
/// (memory, host callbacks). The player keeps the source alive until it loads another location or is closed.
public enum PlayerLocation {
    /// A path, absolute or relative to the working directory, or a `file://` URL.
    case file(String)
    /// An `http://` or `https://` URL fetched with `options`; `key`, when given, is its identity for "the same
    /// location" and the resume position instead of the URL (CDN URLs carry signatures that change).
    case url(String, options: HTTPOptions = HTTPOptions(), key: String? = nil)
    /// A byte source; the context shows its name.
    case source(any ByteSource)

    /// The text the context shows: the path or URL as given, or the source's name.
    public var displayName: String {
        switch self {
        case .file(let text), .url(let text, _, _): text
        case .source(let source): source.name
        }
    }

    /// The identity used for "the same location" and for resume positions: a path and its `file://` URL are one
    /// location (both become an absolute path with `.` and `..` resolved); a source is itself.
    /// Throws `.invalidArgument` for an empty path or a `file://` URL naming another host or with bad escapes,
    /// `.unsupported` for other URL schemes.
    func key() throws(VoiceNoteError) -> LocationKey {
        switch self {
        case .file(let text): return .path(try LocationKey.normalizedPath(text))
        case .url(let text, _, let key):
            try URLSource.validate(text)
            if let key, key.isEmpty { throw VoiceNoteError(.invalidArgument, "the key is empty") }
            return .remote(key ?? text)
        case .source(let source): return .source(ObjectIdentifier(source))
        }
    }

    /// Opens the bytes to play (on the player's thread), a URL's through `cache`.
    func open(key: LocationKey, cache: MediaCache) throws(VoiceNoteError) -> any ByteSource {
        switch (self, key) {
        case (.source(let source), _): return source
        case (.file, .path(let path)): return try FileSource(path: path)
        case (.url(let text, let options, let key), _): return try RemoteMedia.open(url: text, options: options, key: key, cache: cache)
        case (.file(let text), _): throw VoiceNoteError(.internal, "no path for \(text)")
        }
    }
}

/// A location's identity (see `PlayerLocation.key()`).
enum LocationKey: Hashable, Sendable {
    case path(String)
    /// A URL's key (or the URL itself).
    case remote(String)
    /// A source object: compared only with the current item's, which the player keeps alive (an identifier of a
    /// released object may be reused, so sources keep no resume position).
    case source(ObjectIdentifier)

    /// Whether a position is kept for a later load: for paths and URLs, not for sources.
    var keepsResumePosition: Bool {
        if case .source = self { false } else { true }
    }

    /// The absolute, lexically normalized path of a path or `file://` URL.
    static func normalizedPath(_ text: String) throws(VoiceNoteError) -> String {
        guard !text.isEmpty else { throw VoiceNoteError(.invalidArgument, "the location is empty") }
        var path = text
        if let scheme = text.firstIndex(of: ":"), text[..<scheme].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }),
           text[text.index(after: scheme)...].hasPrefix("//") {
            let name = text[..<scheme].lowercased()
            guard name == "file" else {
                throw VoiceNoteError(.unsupported, "\(name):// locations are not supported by this player: \(text)")
            }
            let rest = text[text.index(scheme, offsetBy: 3)...]
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let host = rest[..<slash]
            guard host.isEmpty || host == "localhost" else {
                throw VoiceNoteError(.invalidArgument, "\(text) names another host; only local files play")
            }
            path = try percentDecoded(String(rest[slash...]), in: text)
            guard !path.isEmpty else { throw VoiceNoteError(.invalidArgument, "\(text) names no file") }
        }
        if !path.hasPrefix("/") { path = FileSystem.currentDirectory() + "/" + path }
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `%XX` escapes decoded; `.invalidArgument` for a bad escape or bytes that are not UTF-8.
    private static func percentDecoded(_ text: String, in url: String) throws(VoiceNoteError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw VoiceNoteError(.invalidArgument, "\(url) has a bad %-escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self), !decoded.utf8.contains(0) else {
            throw VoiceNoteError(.invalidArgument, "\(url) decodes to bytes that are not a UTF-8 path")
        }
        return decoded
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
