import CCurlLoader
import VoiceNoteCore

/// How HTTP outcomes become statuses (docs/errors.md): 401 and 403 → `.permission`, 404 and 410 → `.notFound`,
/// 413 → `.tooLarge`, every other 4xx and 5xx → `.network`; transport failures (DNS, connect, TLS, a dropped
/// connection, a stall) → `.network`. Messages name the HTTP status or libcurl's reason, and the URL without its
/// query (signed CDN URLs carry secrets there).
enum NetworkFailure {
    /// The status for an HTTP response code of 400 or more.
    static func status(httpCode: Int) -> Status {
        switch httpCode {
        case 401, 403: .permission
        case 404, 410: .notFound
        case 413: .tooLarge
        default: .network
        }
    }

    /// The failure an HTTP error response stands for.
    static func http(_ code: Int, _ url: String, method: String = "GET") -> VoiceNoteError {
        VoiceNoteError(status(httpCode: code), "\(method) \(Location.redacted(url)): HTTP \(code)", httpCode: code)
    }

    /// The failure a libcurl result stands for (`detail`: libcurl's error buffer, may be empty).
    static func curl(_ code: CURLcode, detail: String, _ url: String, method: String = "GET") -> VoiceNoteError {
        let status: Status = switch code {
        case CURLE_OUT_OF_MEMORY: .noMemory
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: .invalidArgument
        case CURLE_SSL_CACERT_BADFILE: .invalidArgument
        default: .network
        }
        let reason = String(cString: curl_easy_strerror(code))
        let more = detail.isEmpty || detail == reason ? "" : ": \(detail)"
        return VoiceNoteError(status, "\(method) \(Location.redacted(url)): \(reason)\(more) (curl \(code.rawValue))")
    }
}
