#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// How a URL is fetched: extra request headers (Matrix authenticated media needs `Authorization`), a CA file to
/// trust instead of the system's, and the timeouts. TLS certificates and host names are always verified;
/// redirects are followed (at most 10, http and https only); proxies come from the environment as libcurl reads
/// them (`http_proxy`, `https_proxy`, `no_proxy`, `all_proxy`).
public struct HTTPOptions: Sendable, Equatable {
    /// Request headers, each `Name: value`.
    public var headers: [String] = []
    /// A PEM file of CA certificates to trust instead of the system's; nil for the system's.
    public var caFile: String?
    /// Seconds allowed for connecting (DNS, TCP and TLS), 0.1…600.
    public var connectTimeout: Double = 15
    /// Seconds without a byte after which a transfer fails with `.network`, 0.1…3600.
    public var stallTimeout: Double = 30
    /// Seconds one transfer may take in all, however it trickles (a server sending a byte a second never
    /// stalls), 1…86400; over it `.network`.
    public var transferTimeout: Double = 600
    /// The largest resource a download takes, in bytes (1 B…1 TiB): a larger `Content-Length` or `Content-Range`
    /// total fails at once, a body without one fails once it grows past it; `.tooLarge` either way.
    public var maximumBytes: Int64 = 100 << 20
    /// What the stall timeout is measured on: a transfer on a `ManualClock` stalls only when the clock is advanced
    /// past it (seen at the network thread's next turn, within 0.1 s). The connect and transfer timeouts are
    /// libcurl's own, on the real clock.
    public var clock: any VoiceNoteClock = MonotonicClock.shared

    /// The connect timeouts taken, in seconds.
    public static let connectTimeoutRange: ClosedRange<Double> = 0.1...600
    /// The stall timeouts taken, in seconds.
    public static let stallTimeoutRange: ClosedRange<Double> = 0.1...3600
    /// The transfer timeouts taken, in seconds.
    public static let transferTimeoutRange: ClosedRange<Double> = 1...86400
    /// The download size limits taken, in bytes.
    public static let maximumBytesRange: ClosedRange<Int64> = 1...(1 << 40)

    /// The defaults: no extra headers, the system's CAs, 15 s to connect, 30 s of silence before a stall.
    public init() {}

    /// Equal settings on the same clock.
    public static func == (lhs: HTTPOptions, rhs: HTTPOptions) -> Bool {
        lhs.headers == rhs.headers && lhs.caFile == rhs.caFile && lhs.connectTimeout == rhs.connectTimeout
            && lhs.stallTimeout == rhs.stallTimeout && lhs.transferTimeout == rhs.transferTimeout
            && lhs.maximumBytes == rhs.maximumBytes && lhs.clock === rhs.clock
    }

    /// Adds a request header `name: value`.
    /// - Throws: `.invalidArgument` for an empty or malformed name, or a line break in either part.
    public mutating func addHeader(name: String, value: String) throws(VoiceNoteError) {
        let allowed = name.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }
        guard !name.isEmpty, allowed else {
            throw VoiceNoteError(.invalidArgument, "\"\(name)\" is not an HTTP header name")
        }
        guard !value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) else {
            throw VoiceNoteError(.invalidArgument, "the value of header \(name) holds a line break")
        }
        headers.append("\(name): \(value)")
    }

    /// Adds a header given as one `Name: value` line (the CLI's `--header`).
    /// - Throws: `.invalidArgument` without a colon, or as `addHeader(name:value:)`.
    public mutating func addHeader(line: String) throws(VoiceNoteError) {
        guard let colon = line.firstIndex(of: ":") else {
            // The line is not repeated: it may be a token given without its header name.
            throw VoiceNoteError(.invalidArgument, "a header line has no colon (Name: value)")
        }
        let value = line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
        try addHeader(name: String(line[..<colon]), value: String(value))
    }

    /// Sets the connect timeout. - Throws: `.invalidArgument` outside 0.1…600 s (NaN included).
    public mutating func setConnectTimeout(_ seconds: Double) throws(VoiceNoteError) {
        connectTimeout = try Self.checked(seconds, in: Self.connectTimeoutRange, "connect timeout", unit: "s")
    }

    /// Sets the stall timeout. - Throws: `.invalidArgument` outside 0.1…3600 s (NaN included).
    public mutating func setStallTimeout(_ seconds: Double) throws(VoiceNoteError) {
        stallTimeout = try Self.checked(seconds, in: Self.stallTimeoutRange, "stall timeout", unit: "s")
    }

    /// Sets the transfer timeout. - Throws: `.invalidArgument` outside 1…86400 s (NaN included).
    public mutating func setTransferTimeout(_ seconds: Double) throws(VoiceNoteError) {
        transferTimeout = try Self.checked(seconds, in: Self.transferTimeoutRange, "transfer timeout", unit: "s")
    }

    /// Sets the download size limit. - Throws: `.invalidArgument` outside 1 B…1 TiB.
    public mutating func setMaximumBytes(_ bytes: Int64) throws(VoiceNoteError) {
        maximumBytes = try Self.checked(bytes, in: Self.maximumBytesRange, "download limit", unit: "bytes")
    }

    /// `value` when `range` holds it (NaN never does). - Throws: `.invalidArgument` naming `what` and the range.
    private static func checked<Value: Comparable>(_ value: Value, in range: ClosedRange<Value>, _ what: String,
                                                   unit: String) throws(VoiceNoteError) -> Value {
        guard range.contains(value) else {
            throw VoiceNoteError(.invalidArgument, "\(what) \(value) \(unit) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// Sets the CA file (read at each transfer through the checked open). - Throws: `.notFound` when it does not
    /// exist, `.invalidArgument` for an empty path or one that is not a regular file.
    public mutating func setCAFile(_ path: String?) throws(VoiceNoteError) {
        guard let path else {
            caFile = nil
            return
        }
        guard !path.isEmpty else { throw VoiceNoteError(.invalidArgument, "the CA file path is empty") }
        _ = try FileDescriptor.openRegularFile(path, flags: O_RDONLY)  // a FIFO or directory is refused here
        caFile = path
    }
}
