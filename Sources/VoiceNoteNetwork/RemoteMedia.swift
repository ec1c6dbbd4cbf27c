import VoiceNoteCore
import VoiceNoteSources

/// The one opener of a parsed `Location` (the player, the waveform batch, the CLI), and of URLs through the media
/// cache (the C API's URL sources too).
public enum RemoteMedia {
    /// The bytes at `location`: a local file (`FileSource`), or an http(s) URL through `open(url:options:key:cache:)`
    /// with the HTTP options `options` makes (asked only for a URL: options that do not apply to a file never fail
    /// one) and `key`.
    /// - Throws: as `FileSource(path:)` and `open(url:options:key:cache:)`, and what `options` throws.
    public static func open(_ location: Location, options: () throws(VoiceNoteError) -> HTTPOptions,
                            key: String? = nil, cache: MediaCache = .shared) throws(VoiceNoteError) -> any ByteSource {
        switch location {
        case .file(let path, _): return try FileSource(path: path)
        case .remote(let url): return try open(url: url, options: options(), key: key, cache: cache)
        }
    }

    /// The bytes of `url`: the cached copy kept for `key` (the URL when nil) when there is one, read without any
    /// network; else a download (`URLSource`) that the cache keeps under `key` once complete. Either way the source
    /// says where its analysis is kept (`keptAnalysis`, beside the entry).
    /// A key names the media, not the URL: CDN URLs carry signatures that expire and change, so a stable key (a
    /// message id and an attachment index) finds the same entry under a new URL; the same URL under two keys is
    /// two entries.
    ///
    /// Without a key, a download made with request headers (`Authorization`, a CDN token, a cookie) is kept under
    /// the URL and a SHA-256 digest of those headers, so it is served only to a request that sends the same ones:
    /// one account's media never reaches another account, or a request without credentials, through the cache.
    /// An explicit key is the host's word that the media is the same for everyone who names it.
    /// - Throws: as `URLSource.init`; `.invalidArgument` for an empty key.
    public static func open(url: String, options: HTTPOptions = HTTPOptions(), key: String? = nil,
                            cache: MediaCache = .shared) throws(VoiceNoteError) -> any ByteSource {
        if let key, key.isEmpty { throw VoiceNoteError(.invalidArgument, "the key of \(Location.redacted(url)) is empty") }
        _ = try Location(url: url)
        let name = Location.redacted(url)
        let identity = try cacheIdentity(url: url, headers: options.headers, key: key)
        if let identity, let cached = cache.source(for: identity, name: name) {
            cached.keptAnalysis = cache.keptAnalysis(for: identity)
            return cached
        }
        let download = try URLSource(url: url, options: options) { download in
            guard let identity, let length = download.size else { return }
            cache.store(key: identity, length: length) { (file, start) throws(VoiceNoteError) in
                try download.copyDownload(into: file, at: start)
            }
        }
        download.keptAnalysis = identity.map { cache.keptAnalysis(for: $0) }
        return download
    }

    /// Where the analyses of `location` are kept, found without reading the network or decoding: a URL's cache
    /// entry (by the same identity `open(url:options:key:cache:)` stores under), a local file's identity
    /// (`FileSource.identity`). Nil when there is none to have (a file that cannot be opened, headers that cannot
    /// be digested).
    public static func keptAnalysis(at location: Location, options: () throws(VoiceNoteError) -> HTTPOptions,
                                    key: String? = nil, cache: MediaCache = .shared) throws(VoiceNoteError) -> KeptAnalysis? {
        switch location {
        case .file(let path, _):
            return try FileSource(path: path).identity.map { cache.keptAnalysis(for: $0) }
        case .remote(let url):
            return try cacheIdentity(url: url, headers: options().headers, key: key).map { cache.keptAnalysis(for: $0) }
        }
    }

    /// The cache entry's identity: `key`; else the URL, followed by a digest of the request headers when there are
    /// any (in any order: the same set is the same identity); nil (not cached) when the digest cannot be made.
    static func cacheIdentity(url: String, headers: [String], key: String?) throws(VoiceNoteError) -> String? {
        if let key { return key }
        guard !headers.isEmpty else { return url }
        guard let digest = try CurlLibrary.sha256(Array(headers.sorted().joined(separator: "\n").utf8)) else { return nil }
        return url + "\u{1}headers:sha256:" + digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
