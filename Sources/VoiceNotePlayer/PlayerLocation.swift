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

    /// The key as the `itemChanged` event names it: the path, the URL's key (or the URL), or `name` for a source.
    func text(sourceName name: String) -> String {
        switch self {
        case .path(let path): path
        case .remote(let key): key
        case .source: name
        }
    }

    /// Whether a position is kept for a later load: for paths and URLs, not for sources.
    var keepsResumePosition: Bool {
        if case .source = self { false } else { true }
    }

    /// The absolute, lexically normalized path of a path or `file://` URL.
    static func normalizedPath(_ text: String) throws(VoiceNoteError) -> String {
        guard !text.isEmpty else { throw VoiceNoteError(.invalidArgument, "the location is empty") }
        var path = text
        try LocationScheme.requireFetched(text)
        if let scheme = LocationScheme.scheme(of: text) {
            guard scheme == "file" else {
                throw VoiceNoteError(.unsupported, "\(scheme):// locations are loaded as URLs, not as files")
            }
            path = try FileURL.path(of: text)
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
}
