import VoiceNoteCore

/// One request of an upload — a POST (or PUT, PATCH) with a request body, or a HEAD or DELETE without one — sent on
/// the network thread while the caller's thread waits for the answer (an upload runs on its own library thread, so
/// nothing of the host's waits). `cancel` from any thread ends it.
public final class HTTPPost: @unchecked Sendable {
    /// A successful (2xx or 3xx after redirects) response.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code.
        public let code: Int
        /// The `Content-Type`, when given.
        public let contentType: String?
        /// The body.
        public let body: [UInt8]
        /// The headers by lower-case name (the last of repeated ones).
        public var headers: [String: String] = [:]
    }

    /// The most response bytes kept (an upload's answer is a small JSON object).
    public static let maximumResponseBytes = 1 << 20

    private let url: String
    private let options: HTTPOptions
    private let body: HTTPRequestBody?
    private let bodilessMethod: String
    private let monitor = Monitor()
    private var cancelled = false
    private var outcome: Result<Response, VoiceNoteError>?

    /// A POST of `body` to `url` with `options` (headers, CA file, timeouts); nothing is sent before `send`.
    public init(url: String, options: HTTPOptions, body: HTTPRequestBody) {
        self.url = url
        self.options = options
        self.body = body
        bodilessMethod = "POST"
    }

    /// A request without a body: `method` "HEAD" (no response body is read) or "DELETE".
    public init(url: String, options: HTTPOptions, method: String) {
        self.url = url
        self.options = options
        body = nil
        bodilessMethod = method
    }

    /// The method, for messages.
    public var method: String { body?.method ?? bodilessMethod }

    /// Sends the request and waits for its response; `progress` gets the request body bytes handed to libcurl so
    /// far, on the network thread. Call once. - Throws: `.invalidArgument` for a URL that is not http(s);
    /// `.cancelled` after `cancel`; the statuses of an HTTP error (401/403 `.permission`, 404/410 `.notFound`, 413
    /// `.tooLarge`, others `.network`, the message naming `HTTP nnn`); `.network` for transport failures and a
    /// response over 1 MiB; the source's read errors.
    public func send(progress: @escaping (Int64) -> Void) throws(VoiceNoteError) -> Response {
        _ = try Location(url: url)
        let loop = try NetworkLoop.shared()
        var response: HTTPResponse?
        var received: [UInt8] = []
        let made = HTTPTransfer(url: url, options: options, body: body, method: body == nil ? bodilessMethod : nil, handlers: .init(
            response: { answer in
                response = answer
                return nil
            },
            body: { bytes in
                guard received.count + bytes.count <= Self.maximumResponseBytes else {
                    return VoiceNoteError(.network, "\(self.method) \(Location.redacted(self.url)): the response is over \(Self.maximumResponseBytes) bytes")
                }
                received.append(contentsOf: bytes)
                return nil
            },
            finished: { [monitor] failure in
                let result: Result<Response, VoiceNoteError> = if let failure { .failure(failure) } else {
                    .success(Response(code: response?.code ?? 0, contentType: response?.headers["content-type"], body: received,
                                      headers: response?.headers ?? [:]))
                }
                monitor.locked {
                    self.outcome = result
                    monitor.broadcast()
                }
            },
            sent: progress))
        let cancellation = VoiceNoteError(.cancelled, "the upload was cancelled")
        guard !monitor.locked({ cancelled }) else { throw cancellation }
        loop.start(made)
        let result = monitor.locked { () -> Result<Response, VoiceNoteError> in
            while true {
                if cancelled { return .failure(cancellation) }
                if let outcome { return outcome }
                monitor.wait()
            }
        }
        if case .failure(let error) = result, error.status == .cancelled { loop.cancel(made) }
        return try result.get()
    }

    /// Ends the request: `send` throws `.cancelled` (unless its response already came). Any thread, any time.
    public func cancel() {
        monitor.locked {
            guard outcome == nil else { return }
            cancelled = true
            monitor.broadcast()
        }
    }
}
