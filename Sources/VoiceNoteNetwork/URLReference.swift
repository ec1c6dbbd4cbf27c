import CCurlLoader
import VoiceNoteCore

/// A URL reference a server answered with (a `Location`), resolved against the URL that was asked (RFC 3986, by
/// libcurl's URL API): absolute, scheme-relative, absolute-path or relative.
public enum URLReference {
    /// `reference` resolved against `base`. - Throws: `.unsupported` when libcurl cannot be loaded; `.format` when
    /// the two do not make a URL.
    public static func resolve(_ reference: String, against base: String) throws(VoiceNoteError) -> String {
        try CurlLibrary.require()
        guard let handle = curl_url() else { throw VoiceNoteError(.noMemory, "curl_url failed") }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, base, 0) == CURLUE_OK,
              curl_url_set(handle, CURLUPART_URL, reference, 0) == CURLUE_OK else {
            throw VoiceNoteError(.format, "\(Location.redacted(reference)) is not a URL reference of \(Location.redacted(base))")
        }
        var part: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, CURLUPART_URL, &part, 0) == CURLUE_OK, let part else {
            throw VoiceNoteError(.format, "\(Location.redacted(reference)) does not resolve against \(Location.redacted(base))")
        }
        defer { curl_free(part) }
        return String(cString: part)
    }
}
