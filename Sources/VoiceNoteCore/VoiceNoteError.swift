#if canImport(Glibc)
import Glibc
#endif

/// The one error type of voicenote: a status (docs/errors.md) and a detail message for people.
public struct VoiceNoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status the C API returns for this error; never `.ok`.
    public let status: Status
    /// Detail text, with the errno or HTTP status where there is one.
    public let message: String
    /// The HTTP status code of the response this error stands for (400 or more); nil for any other failure.
    public let httpCode: Int?

    /// Makes an error with a status and a detail message (and the HTTP status code of an error response).
    public init(_ status: Status, _ message: String, httpCode: Int? = nil) {
        self.status = status
        self.message = message
        self.httpCode = httpCode
    }

    /// `"VN_E_FORMAT: <message>"`.
    public var description: String { "\(status.name): \(message)" }

    /// Maps an errno from a file operation to the status docs/errors.md gives it.
    public static func fromErrno(_ code: Int32, _ what: String) -> VoiceNoteError {
        let text = String(cString: strerror(code))
        let status: Status = switch code {
        case ENOENT, ENOTDIR: .notFound
        case EACCES, EPERM, EROFS: .permission
        case ENOSPC, EFBIG, EDQUOT: .noSpace
        case EISDIR: .invalidArgument
        case ENOMEM: .noMemory
        default: .io
        }
        return VoiceNoteError(status, "\(what): \(text) (errno \(code))")
    }
}
