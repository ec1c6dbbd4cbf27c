import VoiceNoteCore
import VoiceNoteSources

/// Opens remote media through the media cache: the one way the player and the C API's URL sources reach a URL.
public enum RemoteMedia {
    /// The bytes of `url`: the cached copy kept for `key` (the URL when nil) when there is one, read without any
    /// network; else a download (`URLSource`) that the cache keeps under `key` once complete.
    /// A key names the media, not the URL: CDN URLs carry signatures that expire and change, so a stable key (a
    /// message id and an attachment index) finds the same entry under a new URL; the same URL under two keys is
    /// two entries.
    /// - Throws: as `URLSource.init`; `.invalidArgument` for an empty key.
    public static func open(url: String, options: HTTPOptions = HTTPOptions(), key: String? = nil,
                            cache: MediaCache = .shared) throws(VoiceNoteError) -> any ByteSource {
        if let key, key.isEmpty { throw VoiceNoteError(.invalidArgument, "the key of \(NetworkFailure.redacted(url)) is empty") }
        try URLSource.validate(url)
        let name = NetworkFailure.redacted(url)
        let identity = key ?? url
        if let cached = cache.source(for: identity, name: name) { return cached }
        return try URLSource(url: url, options: options) { download in
            guard let length = download.size else { return }
            cache.store(key: identity, length: length) { (file, start) throws(VoiceNoteError) in
                try download.copyDownload(into: file, at: start)
            }
        }
    }
}
