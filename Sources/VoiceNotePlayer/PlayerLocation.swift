import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources

/// What a player plays: a parsed `Location` (a local file, or an http(s) URL with its HTTP options and key), or a
/// byte source the caller made (memory, host callbacks). The player keeps the source alive until it loads another
/// location or is closed.
public enum PlayerLocation {
    /// A local file, or an http(s) URL fetched with `options`; `key`, when given, is a URL's identity for "the
    /// same location" and the resume position instead of the URL (CDN URLs carry signatures that change). Both are
    /// unused for a file.
    case location(Location, options: HTTPOptions = HTTPOptions(), key: String? = nil)
    /// A byte source; the context shows its name.
    case source(any ByteSource)
    /// Text that names nothing the player plays, with why: loading it throws `error` (a queue reports it as the
    /// item's failure, as for a data source answering an `mxc://` URL).
    case refused(String, VoiceNoteError)

    /// A location given as text (a path, a `file://` URL or an http(s) URL), parsed once (`Location`); `options`
    /// and `key` apply to a URL only. Text that is no location becomes `.refused`.
    public init(parsing text: String, options: HTTPOptions = HTTPOptions(), key: String? = nil) {
        do throws(VoiceNoteError) {
            self = .location(try Location(text), options: options, key: key)
        } catch {
            self = .refused(text, error)
        }
    }

    /// A local file: a path (absolute or relative to the working directory) or a `file://` URL. Anything else is
    /// `.refused`: `.unsupported` for a URL of another scheme (an http(s) URL included: `url(_:options:key:)`),
    /// `.invalidArgument` for empty text or a `file://` URL of another host.
    public static func file(_ text: String) -> PlayerLocation {
        do throws(VoiceNoteError) {
            let location = try Location(text)
            guard location.isFile else {
                return .refused(text, VoiceNoteError(.unsupported, "\(Location.redacted(text)) is loaded as a URL, not as a file"))
            }
            return .location(location)
        } catch {
            return .refused(text, error)
        }
    }

    /// An `http://` or `https://` URL fetched with `options`, under `key` (see `location`). Anything else is
    /// `.refused` with `.invalidArgument`.
    public static func url(_ text: String, options: HTTPOptions = HTTPOptions(), key: String? = nil) -> PlayerLocation {
        do throws(VoiceNoteError) {
            return .location(try Location(url: text), options: options, key: key)
        } catch {
            return .refused(text, error)
        }
    }

    /// The text the context shows: the path or URL as given, or the source's name.
    public var displayName: String {
        switch self {
        case .location(let location, _, _): location.text
        case .source(let source): source.name
        case .refused(let text, _): text
        }
    }

    /// The URL and its HTTP options of an http(s) location; nil for anything else.
    public var remote: (url: String, options: HTTPOptions)? {
        if case .location(.remote(let url), let options, _) = self { (url, options) } else { nil }
    }

    /// The identity used for "the same location" and for resume positions: a path and its `file://` URL are one
    /// location (both become an absolute path with `.` and `..` resolved); a source is itself.
    /// - Throws: the error of a `.refused` location; `.invalidArgument` for an empty key.
    func key() throws(VoiceNoteError) -> LocationKey {
        switch self {
        case .location(.file(let path, _), _, _): return .path(LocationKey.normalizedPath(path))
        case .location(.remote(let url), _, let key):
            if let key, key.isEmpty { throw VoiceNoteError(.invalidArgument, "the key is empty") }
            return .remote(key ?? url)
        case .source(let source): return .source(ObjectIdentifier(source))
        case .refused(_, let error): throw error
        }
    }

    /// Opens the bytes to play (on the player's thread) with `RemoteMedia.open`, a URL's through `cache`; a file
    /// by its identity's absolute path, so a working directory changed since the load does not matter.
    func open(key locationKey: LocationKey, cache: MediaCache) throws(VoiceNoteError) -> any ByteSource {
        switch (self, locationKey) {
        case (.source(let source), _): return source
        case (.location(let location, let options, let key), _):
            let opened = if case .path(let path) = locationKey { Location.file(path: path, text: location.text) } else { location }
            return try RemoteMedia.open(opened, options: { options }, key: key, cache: cache)
        case (.refused(_, let error), _): throw error
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

    /// The absolute, lexically normalized form of a path (relative to the working directory).
    static func normalizedPath(_ text: String) -> String {
        let path = text.hasPrefix("/") ? text : FileSystem.currentDirectory() + "/" + text
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}
