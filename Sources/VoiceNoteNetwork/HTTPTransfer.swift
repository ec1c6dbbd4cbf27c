import CCurlLoader
import VoiceNoteCore

/// One HTTP GET (optionally of a byte range) driven by the `NetworkLoop`: a libcurl easy handle and the handlers
/// that take its response, its body and its end. Handlers run on the loop's thread, one at a time, never after
/// `NetworkLoop.cancel` returns; they must not block (they write to a file and signal a reader).
final class HTTPTransfer: @unchecked Sendable {
    /// What a transfer reports, on the loop's thread.
    struct Handlers {
        /// The response's status and headers, once, before any body byte; an error aborts the transfer with it.
        var response: (HTTPResponse) -> VoiceNoteError?
        /// Body bytes in order; an error aborts the transfer with it.
        var body: (UnsafeRawBufferPointer) -> VoiceNoteError?
        /// The end: nil when the whole body arrived. Not called for a cancelled transfer.
        var finished: (VoiceNoteError?) -> Void
    }

    /// Where the loop has the transfer (guarded by the loop's monitor).
    enum Stage { case new, queued, active, finishing, done }

    let url: String
    let options: HTTPOptions
    /// The first byte asked for, and the last (inclusive; nil: to the end).
    let first: Int64
    let last: Int64?
    let handlers: Handlers

    /// Loop-owned state.
    var stage = Stage.new
    var easy: UnsafeMutableRawPointer?
    /// Monotonic time of the last byte (or of the start), for the stall timeout.
    var lastActivity: UInt64 = 0

    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var headers: [String: String] = [:]
    private var responded = false
    /// A handler's error that aborted the transfer: reported instead of libcurl's.
    private var abortedWith: VoiceNoteError?

    init(url: String, options: HTTPOptions, first: Int64 = 0, last: Int64? = nil, handlers: Handlers) {
        self.url = url
        self.options = options
        self.first = first
        self.last = last
        self.handlers = handlers
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        if let easy { curl_easy_cleanup(easy) }
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// Makes the easy handle (on the loop's thread). - Throws: `.noMemory`, or `.invalidArgument` for an option
    /// libcurl refuses.
    func prepare() throws(VoiceNoteError) -> UnsafeMutableRawPointer {
        guard let easy = curl_easy_init() else { throw VoiceNoteError(.noMemory, "curl_easy_init failed") }
        self.easy = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        var results: [CURLcode] = [
            vnshim_curl_setopt_pointer(easy, CURLOPT_URL, url),
            vnshim_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            vnshim_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1),
            vnshim_curl_setopt_long(easy, CURLOPT_MAXREDIRS, 10),
            vnshim_curl_setopt_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            vnshim_curl_setopt_pointer(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
            vnshim_curl_setopt_pointer(easy, CURLOPT_USERAGENT, "voicenote/\(Version.string)"),
            vnshim_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000)),
            vnshim_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer),
            vnshim_curl_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, { data, size, count, me in
                guard let me, let data else { return 0 }
                return Unmanaged<HTTPTransfer>.fromOpaque(me).takeUnretainedValue().receive(body: data, size * count)
            }),
            vnshim_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, me),
            vnshim_curl_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, { data, size, count, me in
                guard let me, let data else { return 0 }
                return Unmanaged<HTTPTransfer>.fromOpaque(me).takeUnretainedValue().receive(header: data, size * count)
            }),
            vnshim_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, me),
        ]
        if let caFile = options.caFile { results.append(vnshim_curl_setopt_pointer(easy, CURLOPT_CAINFO, caFile)) }
        if first > 0 || last != nil {
            let range = "\(first)-" + (last.map { String($0) } ?? "")
            results.append(vnshim_curl_setopt_pointer(easy, CURLOPT_RANGE, range))
        }
        for header in options.headers { headerList = curl_slist_append(headerList, header) }
        if let headerList { results.append(vnshim_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)) }
        if let failed = results.first(where: { $0 != CURLE_OK }) {
            throw NetworkFailure.curl(failed, detail: String(cString: errorBuffer), url)
        }
        return easy
    }

    /// The outcome of a transfer libcurl ended with `code`: the handler's error that aborted it, the HTTP error,
    /// libcurl's, or nil when the whole body arrived.
    func outcome(_ code: CURLcode) -> VoiceNoteError? {
        if let abortedWith { return abortedWith }
        if code != CURLE_OK { return NetworkFailure.curl(code, detail: String(cString: errorBuffer), url) }
        // A body-less response (an empty file, a HEAD-like error page) was never announced through `body`.
        if !responded { return respond() }
        return nil
    }

    private func receive(header data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        lastActivity = monotonicNanoseconds()
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
        HTTPResponse.collect(line, into: &headers)
        return count
    }

    private func receive(body data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        lastActivity = monotonicNanoseconds()
        if !responded, let failure = respond() {
            abortedWith = failure
            return 0
        }
        if let failure = handlers.body(UnsafeRawBufferPointer(start: data, count: count)) {
            abortedWith = failure
            return 0
        }
        return count
    }

    /// Hands the response to its handler, once; an HTTP error status is a failure.
    private func respond() -> VoiceNoteError? {
        responded = true
        var code = 0
        if let easy { _ = vnshim_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code) }
        if code >= 400 { return NetworkFailure.http(code, url) }
        return handlers.response(HTTPResponse(code: code, headers: headers))
    }
}
