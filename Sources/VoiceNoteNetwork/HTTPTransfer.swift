import CCurlLoader
import VoiceNoteCore
import VoiceNoteSources

/// One HTTP GET (optionally of a byte range) or POST (with a request body) driven by the `NetworkLoop`: a libcurl
/// easy handle and the handlers that take its response, its body and its end. Handlers run on the loop's thread, one at a time, never after
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
        /// How many request body bytes have been handed to libcurl so far (POST only).
        var sent: (Int64) -> Void = { _ in }
    }

    /// Where the loop has the transfer (guarded by the loop's monitor): `admitting` is taken off the queue by the
    /// loop and not yet on the multi handle.
    enum Stage { case new, queued, admitting, active, finishing, done }

    let url: String
    let options: HTTPOptions
    /// The first byte asked for, and the last (inclusive; nil: to the end).
    let first: Int64
    let last: Int64?
    let handlers: Handlers
    /// What a POST sends; nil for a GET.
    let requestBody: HTTPRequestBody?
    /// A request without a body other than a GET: "HEAD" (no response body) or "DELETE".
    let bodilessMethod: String?
    /// "GET", "HEAD", "DELETE", or the body's "POST", "PUT" or "PATCH", for messages.
    var method: String { requestBody?.method ?? bodilessMethod ?? "GET" }
    /// Whether the request body is a file still being written.
    var isGrowing: Bool {
        if case .growing? = requestBody?.content { true } else { false }
    }

    /// Loop-owned state.
    var stage = Stage.new
    var easy: UnsafeMutableRawPointer?
    /// The time of the last byte (or of the start) on `options.clock`, for the stall timeout.
    var lastActivity = 0.0
    /// The connection's unacknowledged bytes when the loop last looked (-1: not known).
    private var lastUnsent: Int32 = -1
    /// A growing request body had nothing new: libcurl's transfer is paused until the loop unpauses it (`resume`),
    /// and no stall is counted meanwhile (the writer is waited for, not the server). Loop thread only.
    var waitingForBody = false

    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var mime: OpaquePointer?
    private var sentBytes: Int64 = 0
    /// The request body's size as announced to the server (nil: chunked).
    private var announcedBytes: Int64?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var headers: [String: String] = [:]
    private var responded = false
    /// The URL of the hop being made: `url`, then each followed redirect's target.
    private(set) var currentURL: String
    private var redirects = 0
    /// A redirect's response is being received (its body is dropped; `followRedirect` takes it).
    private var redirecting = false
    /// The most redirects followed for one transfer.
    static let maximumRedirects = 10
    /// A handler's error that aborted the transfer: reported instead of libcurl's.
    private var abortedWith: VoiceNoteError?

    init(url: String, options: HTTPOptions, first: Int64 = 0, last: Int64? = nil, body: HTTPRequestBody? = nil,
         method: String? = nil, handlers: Handlers) {
        bodilessMethod = body == nil ? method : nil
        self.url = url
        currentURL = url
        self.requestBody = body
        self.options = options
        self.first = first
        self.last = last
        self.handlers = handlers
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        if let easy { curl_easy_cleanup(easy) }
        if let mime { curl_mime_free(mime) }
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
            vnshim_curl_track_sockets(easy),  // noteSendQueue finds the connection's socket
            vnshim_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0),  // followed here, hop by hop (followRedirect)
            vnshim_curl_setopt_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            vnshim_curl_setopt_pointer(easy, CURLOPT_USERAGENT, "voicenote/\(Version.string)"),
            vnshim_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000)),
            // A growing body (a take uploaded while recorded) lasts as long as the take: no overall limit then.
            vnshim_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, isGrowing ? 0 : Int(options.transferTimeout * 1000)),
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
        if let caFile = options.caFile {
            // Read here through the checked open and handed over as bytes: libcurl opening a FIFO named as the CA
            // file would block the one network thread, and every transfer of the process with it.
            let pem = try Self.readCAFile(caFile)
            results.append(pem.withUnsafeBytes { vnshim_curl_setopt_blob(easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) })
        }
        if first > 0 || last != nil {
            let range = "\(first)-" + (last.map { String($0) } ?? "")
            results.append(vnshim_curl_setopt_pointer(easy, CURLOPT_RANGE, range))
        }
        if let requestBody { results += attach(requestBody, to: easy, me: me) }
        switch bodilessMethod {
        case "HEAD"?: results.append(vnshim_curl_setopt_long(easy, CURLOPT_NOBODY, 1))
        case let other?: results.append(vnshim_curl_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, other))
        case nil: break
        }
        for header in options.headers { headerList = curl_slist_append(headerList, header) }
        if let headerList { results.append(vnshim_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)) }
        if let failed = results.first(where: { $0 != CURLE_OK }) {
            throw NetworkFailure.curl(failed, detail: String(cString: errorBuffer), url, method: method)
        }
        return easy
    }

    /// The outcome of a transfer libcurl ended with `code`: the handler's error that aborted it, the HTTP error,
    /// libcurl's, or nil when the whole body arrived.
    func outcome(_ code: CURLcode) -> VoiceNoteError? {
        if let abortedWith { return abortedWith }
        if code != CURLE_OK { return NetworkFailure.curl(code, detail: String(cString: errorBuffer), url, method: method) }
        // A body-less response (an empty file, a HEAD-like error page) was never announced through `body`.
        if !responded { return respond() }
        return nil
    }

    /// The largest CA file taken (a system bundle is about 200 KB).
    static let maximumCAFileBytes: Int64 = 16 << 20

    /// The bytes of a PEM CA file. - Throws: as `FileSource.init` (the checked open); `.tooLarge` over 16 MiB.
    static func readCAFile(_ path: String) throws(VoiceNoteError) -> [UInt8] {
        let file = try FileSource(path: path)
        guard let size = file.size, size <= maximumCAFileBytes else {
            throw VoiceNoteError(.tooLarge, "the CA file \(path) is over \(maximumCAFileBytes) bytes")
        }
        return try file.readPrefix(count: Int(size))
    }

    /// The absolute target of a redirect response (3xx but 304, with a Location), or nil; libcurl resolves it
    /// once the response is complete.
    private func redirectTarget() -> String? {
        guard let easy else { return nil }
        var code = 0
        _ = vnshim_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        guard (300...399).contains(code), code != 304 else { return nil }
        var target: UnsafePointer<CChar>?
        guard vnshim_curl_getinfo_string(easy, CURLINFO_REDIRECT_URL, &target) == CURLE_OK, let target else { return nil }
        return String(cString: target)
    }

    /// After a completed hop: when it was a redirect, points the easy handle at its target and returns true (the
    /// loop adds it again); false when the response was the answer. Custom headers go only to the origin that was
    /// asked (a hop elsewhere is made without them); a request body is never sent on, an https hop never leads
    /// to http. - Throws: `.network` naming the redirect it refuses, or after `maximumRedirects`.
    func followRedirect() throws(VoiceNoteError) -> Bool {
        guard abortedWith == nil, let easy, let target = redirectTarget() else { return false }
        var code = 0
        _ = vnshim_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        let hop = "\(method) \(Location.redacted(currentURL)): HTTP \(code) redirect to \(Location.redacted(target))"
        guard requestBody == nil else {
            throw VoiceNoteError(.network, "\(hop) refused: an upload is sent to the URL it was given, never on")
        }
        guard let next = HTTPOrigin(target), let from = HTTPOrigin(currentURL), let asked = HTTPOrigin(url) else {
            throw VoiceNoteError(.network, "\(hop) refused: not an http(s) URL")
        }
        guard !(from.scheme == "https" && next.scheme == "http") else {
            throw VoiceNoteError(.network, "\(hop) refused: from https to http")
        }
        redirects += 1
        guard redirects <= Self.maximumRedirects else {
            throw VoiceNoteError(.network, "\(hop): more than \(Self.maximumRedirects) redirects")
        }
        currentURL = target
        headers = [:]
        responded = false
        redirecting = false
        lastActivity = options.clock.now
        let credentials = next == asked ? headerList : nil  // custom headers only to the origin that was asked
        let results = [
            vnshim_curl_setopt_pointer(easy, CURLOPT_URL, target),
            vnshim_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, credentials.map { UnsafeRawPointer($0) }),
        ]
        if let failed = results.first(where: { $0 != CURLE_OK }) {
            throw NetworkFailure.curl(failed, detail: String(cString: errorBuffer), target, method: method)
        }
        return true
    }

    /// Sets up a POST of `body`: the read callback feeds libcurl from the source, with its size when known.
    private func attach(_ body: HTTPRequestBody, to easy: UnsafeMutableRawPointer, me: UnsafeMutableRawPointer) -> [CURLcode] {
        let size = curl_off_t(body.knownSize ?? -1)
        announcedBytes = size >= 0 ? Int64(size) : nil
        let read: curl_read_callback = { buffer, size, count, me in
            guard let me, let buffer else { return Int(CURL_READFUNC_ABORT) }
            return Unmanaged<HTTPTransfer>.fromOpaque(me).takeUnretainedValue().send(into: buffer, size * count)
        }
        // A PUT is sent as libcurl sends a POST's body, under the other method's name.
        let method = body.method == "POST" ? CURLE_OK : vnshim_curl_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, body.method)
        switch body.form {
        case .raw(let contentType):
            headerList = curl_slist_append(headerList, "Content-Type: \(contentType)")
            return [
                method,
                vnshim_curl_setopt_long(easy, CURLOPT_POST, 1),
                vnshim_curl_setopt_read_callback(easy, CURLOPT_READFUNCTION, read),
                vnshim_curl_setopt_pointer(easy, CURLOPT_READDATA, me),
                vnshim_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, size),
            ]
        case .multipart(let field, let fileName, let contentType):
            guard let made = curl_mime_init(easy), let part = curl_mime_addpart(made) else { return [CURLE_OUT_OF_MEMORY] }
            mime = made
            return [
                curl_mime_name(part, field),
                curl_mime_filename(part, fileName),
                curl_mime_type(part, contentType),
                curl_mime_data_cb(part, size, read, nil, nil, me),
                vnshim_curl_setopt_pointer(easy, CURLOPT_MIMEPOST, UnsafeRawPointer(made)),
                method,
            ]
        }
    }

    /// libcurl asks for request body bytes; a read error aborts the transfer with it. A growing body with nothing
    /// new pauses the transfer (`waitingForBody`) until its writer wakes the loop.
    private func send(into buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        lastActivity = options.clock.now
        guard let requestBody else { return Int(CURL_READFUNC_ABORT) }
        let target = UnsafeMutableRawBufferPointer(start: buffer, count: count)
        do throws(VoiceNoteError) {
            let read: Int
            switch requestBody.content {
            case .source(let source):
                read = try source.read(into: target)
                if read == 0, count > 0, let announcedBytes, sentBytes < announcedBytes {
                    // libcurl would wait for the rest until the stall timeout: the file shrank while it was sent.
                    throw VoiceNoteError(.io, "\(source.name) ended after \(sentBytes) of its \(announcedBytes) bytes while it was uploaded")
                }
            case .growing(let file):
                switch try file.readAvailable(into: target) {
                case .bytes(let count): read = count
                case .end: read = 0
                case .later:
                    waitingForBody = true
                    return Int(CURL_READFUNC_PAUSE)
                }
            }
            sentBytes += Int64(read)
            handlers.sent(sentBytes)
            return read
        } catch {
            abortedWith = error
            return Int(CURL_READFUNC_ABORT)
        }
    }

    /// Counts the connection's send queue draining as activity (loop thread): libcurl hands a request body to the
    /// kernel as fast as the socket's buffer takes it, and on a slow uplink that buffer can hold more than the stall
    /// timeout's worth of bytes; while the peer keeps acknowledging them, the transfer is moving, not stalled.
    func noteSendQueue() {
        guard let easy else { return }
        let unsent = vnshim_curl_unsent_bytes(easy)
        if unsent >= 0, lastUnsent >= 0, unsent < lastUnsent { lastActivity = options.clock.now }
        lastUnsent = unsent
    }

    /// Unpauses a transfer paused for its growing body (on the loop's thread, outside libcurl's callbacks):
    /// libcurl asks for the body again at once.
    func resumeBody() {
        guard waitingForBody, let easy else { return }
        waitingForBody = false
        lastActivity = options.clock.now
        _ = curl_easy_pause(easy, CURLPAUSE_CONT)
    }

    private func receive(header data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        lastActivity = options.clock.now
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
        HTTPResponse.collect(line, into: &headers)
        return count
    }

    private func receive(body data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        lastActivity = options.clock.now
        if !responded, let failure = respond() {
            abortedWith = failure
            return 0
        }
        if redirecting { return count }  // a redirect's own body is nobody's business
        if let failure = handlers.body(UnsafeRawBufferPointer(start: data, count: count)) {
            abortedWith = failure
            return 0
        }
        return count
    }

    /// Hands the response to its handler, once; an HTTP error status is a failure; a redirect is not handed on.
    private func respond() -> VoiceNoteError? {
        responded = true
        var code = 0
        if let easy { _ = vnshim_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code) }
        if (300...399).contains(code), code != 304, headers["location"] != nil {  // followRedirect takes it
            redirecting = true
            return nil
        }
        if code >= 400 { return NetworkFailure.http(code, url, method: method) }
        return handlers.response(HTTPResponse(code: code, headers: headers))
    }
}
