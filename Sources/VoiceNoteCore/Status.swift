/// The outcome of an operation, numbered as the C API's `vn_status` (docs/errors.md). Numbers never change.
public enum Status: Int32, Sendable, CaseIterable {
    /// Success.
    case ok = 0
    /// A bad argument, including a directory where a file is expected.
    case invalidArgument = -1
    /// Wrong call order, a NULL or destroyed handle, an unknown subscription.
    case misuse = -2
    /// Out of memory.
    case noMemory = -3
    /// A read or write failed.
    case io = -4
    /// The disk or a file-size limit is full.
    case noSpace = -5
    /// Corrupt, truncated, not audio, absurd header values, invalid UTF-8 or JSON.
    case format = -6
    /// No such audio device, it will not start, or it was lost.
    case device = -7
    /// Access refused: device or file permission, HTTP 401/403.
    case permission = -8
    /// DNS, connect, TLS, dropped connection, HTTP 5xx and other 4xx.
    case network = -9
    /// Missing file, HTTP 404/410.
    case notFound = -10
    /// Over a size limit, HTTP 413.
    case tooLarge = -11
    /// Not supported.
    case unsupported = -12
    /// A session hook refused, or the resource is in use.
    case busy = -13
    /// The operation was cancelled.
    case cancelled = -14
    /// A bug in voicenote.
    case `internal` = -15

    /// The C name of the status, e.g. `VN_E_FORMAT`.
    public var name: StaticString {
        switch self {
        case .ok: "VN_OK"
        case .invalidArgument: "VN_E_INVALID_ARG"
        case .misuse: "VN_E_MISUSE"
        case .noMemory: "VN_E_NOMEM"
        case .io: "VN_E_IO"
        case .noSpace: "VN_E_NO_SPACE"
        case .format: "VN_E_FORMAT"
        case .device: "VN_E_DEVICE"
        case .permission: "VN_E_PERMISSION"
        case .network: "VN_E_NETWORK"
        case .notFound: "VN_E_NOT_FOUND"
        case .tooLarge: "VN_E_TOO_LARGE"
        case .unsupported: "VN_E_UNSUPPORTED"
        case .busy: "VN_E_BUSY"
        case .cancelled: "VN_E_CANCELLED"
        case .internal: "VN_E_INTERNAL"
        }
    }

    /// A short English description of the status.
    public var summary: StaticString {
        switch self {
        case .ok: "success"
        case .invalidArgument: "invalid argument"
        case .misuse: "wrong call order or invalid handle"
        case .noMemory: "out of memory"
        case .io: "input/output error"
        case .noSpace: "no space left (disk or file-size limit full)"
        case .format: "corrupt or unsupported data"
        case .device: "audio device missing, failed or lost"
        case .permission: "permission denied"
        case .network: "network error"
        case .notFound: "not found"
        case .tooLarge: "too large"
        case .unsupported: "not supported"
        case .busy: "busy or refused by a session hook"
        case .cancelled: "cancelled"
        case .internal: "internal error"
        }
    }
}
