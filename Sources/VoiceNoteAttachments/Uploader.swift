import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteNetwork
import VoiceNoteSources

/// Uploads attachments, one at a time, each on its own library thread (`vn-upload`) while libcurl sends it on the
/// network thread: the four states as events, progress at 0, every 0.05 and 1, the uploaded URL written into the
/// payload, then the post-processor. Cancel and retry at any time; a failure never touches the local file.
public final class Uploader: @unchecked Sendable {
    /// Rewrites the uploaded payload, synchronously on the upload thread (Stream's
    /// `UploadedAttachmentPostProcessor`); an error it throws fails the upload with it.
    public typealias PostProcessor = @Sendable (VoiceRecordingPayload) throws(VoiceNoteError) -> VoiceRecordingPayload

    /// The http(s) URL uploads go to.
    public let endpoint: String
    /// How uploads go.
    public let configuration: UploadOptions
    /// The subscribers of the state events.
    public let events: EventChannel<UploadState>

    private struct Request {
        var item: UploadItem
        var payload: VoiceRecordingPayload?
        /// Where a source's bytes start, to send them again on retry.
        var start: Int64
        /// Where an earlier attempt got to, and the hook for a new reservation.
        var resumption = UploadResumption()
        /// Told this request's final state, on the thread that ended it (the upload thread, or `begin`'s caller).
        var completion: (@Sendable (UploadState) -> Void)?
    }

    private let monitor = Monitor()
    private var current: UploadState?
    private var request: Request?
    private var thread: LibraryThread?
    private var post: HTTPPost?
    private var cancelled = false
    private var closed = false
    private var closeBegun = false
    /// Numbers uploads; `storedGeneration` is the last whose thread `begin` has stored (or given up storing).
    private var generation: UInt64 = 0
    private var storedGeneration: UInt64 = 0
    private var postProcessor: PostProcessor?
    /// Matrix mode: the content URI the running (or last) upload reserved.
    private var reservedURI: String?

    /// An uploader to `endpoint` delivering its events through `dispatcher`.
    /// - Throws: `.invalidArgument` unless `endpoint` is an http(s) URL.
    public init(endpoint: String, options: UploadOptions = UploadOptions(),
                dispatcher: any EventDispatcher = EventThread.shared) throws(VoiceNoteError) {
        _ = try Location(url: endpoint)
        self.endpoint = endpoint
        configuration = options
        events = EventChannel(dispatcher: dispatcher)
    }

    /// The state of the last upload; nil before the first.
    public var state: UploadState? { monitor.locked { current } }

    /// Matrix mode: the `mxc://` URI the last upload reserved on the homeserver, known from its first `uploading`
    /// state on (before the bytes are sent: a message can name it at once); nil before, and in the other modes.
    public var contentURI: String? { monitor.locked { reservedURI } }

    /// Sets (or with nil removes) the post-processor; it applies from the next upload that reaches its end.
    public func setPostProcessor(_ hook: PostProcessor?) { monitor.locked { postProcessor = hook } }

    /// Starts an upload and returns at once (state `pendingUpload`). `payload`, when given, is the payload to
    /// complete (the recorder's duration and waveform); else it is made from the file (duration and waveform read
    /// from a voice recording) or from the source's name and size.
    /// - Throws: `.busy` while an upload runs; `.misuse` after `close`; for a file, `LocalAttachment`'s statuses
    ///   (`.notFound`, `.unsupported`, `.tooLarge`, `.invalidArgument`); for a source over the limit `.tooLarge`.
    /// `resumption` goes on from an earlier attempt of the same note (the outbox's): its reservation, its key.
    /// `completion`, when given, is told this upload's final state (and no other upload's) on the thread that ended
    /// it, with no lock held, before the final event is delivered; it must not block.
    public func upload(_ item: UploadItem, payload: VoiceRecordingPayload? = nil,
                       resumption: UploadResumption = UploadResumption(),
                       completion: (@Sendable (UploadState) -> Void)? = nil) throws(VoiceNoteError) {
        switch item {
        case .file(let location):
            _ = try LocalAttachment(location: location, type: configuration.type, maximumBytes: configuration.maximumBytes)
        case .source(let source, let fileName, _):
            guard AttachmentType.uploadable.contains(configuration.type) else {
                throw VoiceNoteError(.unsupported, "an attachment of type \(configuration.type) cannot be uploaded")
            }
            guard !fileName.isEmpty else { throw VoiceNoteError(.invalidArgument, "an upload needs a file name") }
            if let size = source.size, size - source.position > configuration.maximumBytes {
                throw VoiceNoteError(.tooLarge, "\(fileName) is \(size - source.position) bytes, over the attachment limit of \(configuration.maximumBytes)")
            }
        case .live:
            guard configuration.type == .voiceRecording || configuration.type == .audio else {
                throw VoiceNoteError(.unsupported, "a take being recorded is uploaded as a voice recording or audio, not \(configuration.type)")
            }
        }
        let start: Int64 = if case .source(let source, _, _) = item { source.position } else { 0 }
        try begin(Request(item: item, payload: payload, start: start, resumption: resumption, completion: completion))
    }

    /// Sends the last upload again. - Throws: `.misuse` unless it failed (or was cancelled); `.unsupported` for a
    /// take sent while it was recorded (its bytes went by as they were written: upload the finished file instead).
    public func retry() throws(VoiceNoteError) {
        let last = monitor.locked { () -> Request? in
            if case .uploadFailed = current { return request }
            return nil
        }
        guard let last else { throw VoiceNoteError(.misuse, "retry needs a failed upload") }
        if case .live = last.item {
            throw VoiceNoteError(.unsupported, "a take sent while it was recorded cannot be sent again as it was: upload its file")
        }
        try begin(last)
    }

    /// Cancels the running upload: it fails with `.cancelled` (unless it already ended). Any thread; no-op when
    /// nothing runs.
    public func cancel() {
        let (running, waiting) = monitor.locked { () -> (HTTPPost?, LiveTake?) in
            guard let current, !current.isFinal else { return (nil, nil) }
            cancelled = true
            monitor.broadcast()  // a back-off between attempts (pause) ends
            if case .live(let take)? = request?.item { return (post, take) }
            return (post, nil)
        }
        running?.cancel()
        waiting?.file.interrupt()  // a Matrix upload waiting for the take's end
    }

    /// Waits until the upload ends or `timeout` seconds pass (nil: no limit) on the options' clock
    /// (`UploadOptions.http.clock`, the one its stall timeout runs on too); returns the state then.
    public func wait(timeout: Double? = nil) -> UploadState? {
        let clock = configuration.http.clock
        let deadline = timeout.map { clock.now + max(0, min($0, 1e6)) } ?? .infinity
        return monitor.locked {
            while let state = current, !state.isFinal {
                if !clock.wait(on: monitor, until: deadline) { break }
            }
            return current
        }
    }

    /// Cancels any upload, waits for its thread (unless called on it, from the post-processor) and ends the
    /// events: no callback runs after this returns.
    public func close() {
        monitor.locked { closeBegun = true }  // before the cancel: the upload thread's tus DELETE is then skipped
        cancel()
        let running = monitor.locked { () -> LibraryThread? in
            closed = true
            defer { thread = nil }
            return thread
        }
        running?.joinOrDetach()
        setPostProcessor(nil)
        events.close()
    }

    private func begin(_ request: Request) throws(VoiceNoteError) {
        let (previous, number) = try monitor.locked { () throws(VoiceNoteError) -> (LibraryThread?, UInt64) in
            guard !closed else { throw VoiceNoteError(.misuse, "the uploader was destroyed") }
            if let current, !current.isFinal { throw VoiceNoteError(.busy, "an upload is running; cancel it or wait") }
            self.request = request
            cancelled = false
            post = nil
            reservedURI = nil
            current = .pendingUpload
            generation &+= 1
            defer { thread = nil }
            return (thread, generation)
        }
        previous?.join()
        events.emit(.pendingUpload)
        do throws(VoiceNoteError) {
            let started = try LibraryThread(name: "vn-upload") { [self] in run(request, generation: number) }
            // The thread cannot end its upload before it is stored here (it waits for `storedGeneration`), so the
            // next begin always finds it to join. A close that came meanwhile joined what it found: this one is
            // then ours to join (close() cancelled it, so it ends at once).
            let orphaned = monitor.locked { () -> Bool in
                if !closed { thread = started }
                storedGeneration = number
                monitor.broadcast()
                return closed
            }
            if orphaned { started.joinOrDetach() }
        } catch {
            finish(.uploadFailed(error))
            throw error
        }
    }

    private func run(_ request: Request, generation: UInt64) {
        monitor.locked { while storedGeneration < generation { monitor.wait() } }
        do throws(VoiceNoteError) {
            let (body, base) = try prepare(request)
            var steps = ProgressSteps(total: body.knownSize)
            let progress = { [self] (sent: Int64) in
                if let fraction = steps.advance(sent: sent) { report(.uploading(progress: fraction)) }
            }
            let fileName = request.item.fileName
            var payload: VoiceRecordingPayload
            switch configuration.mode {
            case .multipart, .raw:
                report(.uploading(progress: 0))
                let url = configuration.requestURL(endpoint: endpoint, fileName: fileName)
                var http = configuration.http
                if let key = request.resumption.key { try http.addHeader(name: "Idempotency-Key", value: key) }
                let response = try send(HTTPPost(url: url, options: http, body: body), progress: progress)
                payload = try Self.completed(Self.finishedPayload(base, of: request.item), with: response,
                                             urlKey: configuration.responseURLKey)
            case .matrix:
                let uri = try sendToContentURI(body, fileName: fileName, resuming: request.resumption.reserved, progress: progress)
                payload = try Self.completed(Self.finishedPayload(base, of: request.item), contentURI: uri)
            case .tus:
                let location = try sendOverTus(body, fileName: fileName, mimeType: body.mimeType,
                                               resuming: request.resumption.reserved, progress: progress)
                payload = try Self.finishedPayload(base, of: request.item)
                try payload.setAssetURL(location)
            }
            report(.uploading(progress: 1))
            if let hook = monitor.locked({ postProcessor }) {
                guard !monitor.locked({ cancelled }) else { throw VoiceNoteError(.cancelled, "the upload was cancelled") }
                payload = try hook(payload)
            }
            finish(.uploaded(payload))
        } catch {
            finish(.uploadFailed(error))
        }
    }

    /// The body to send and the payload to complete, for a request (on the upload thread: reading a recording's
    /// waveform takes a while).
    private func prepare(_ request: Request) throws(VoiceNoteError) -> (HTTPRequestBody, VoiceRecordingPayload) {
        let fileName = request.item.fileName
        let form = { (mimeType: String) -> HTTPRequestBody.Form in
            self.configuration.mode == .multipart
                ? .multipart(field: "file", fileName: fileName, contentType: mimeType) : .raw(contentType: mimeType)
        }
        let source: ByteSource
        let mimeType: String
        var payload: VoiceRecordingPayload
        switch request.item {
        case .file(let location):
            let path = try LocalAttachment.path(of: location)
            source = try FileSource(path: path)
            mimeType = MIMEType(fileName: path).rawValue
            if let given = request.payload {
                payload = given
            } else if configuration.type == .voiceRecording {
                payload = try VoiceRecordingPayload.fromRecording(path: path)
            } else {
                payload = try VoiceRecordingPayload(type: configuration.type, assetURL: FileURL.make(path: path))
            }
        case .source(let given, _, let type):
            source = given
            try source.seek(to: request.start)
            mimeType = type ?? MIMEType(fileName: fileName).rawValue
            if let given = request.payload {
                payload = given
            } else {
                payload = try VoiceRecordingPayload(type: configuration.type, assetURL: "about:blank")
            }
        case .live(let take):
            // The payload is the finished take's (finishedPayload), known once the body has ended.
            let placeholder: VoiceRecordingPayload
            if let given = request.payload { placeholder = given } else {
                placeholder = try VoiceRecordingPayload(type: configuration.type, assetURL: "about:blank")
            }
            return (HTTPRequestBody(form(take.mimeType), growing: take.file), placeholder)
        }
        if payload.title == nil { payload.title = fileName }
        if payload.fileSize == nil { payload.fileSize = source.size.map { $0 - source.position } }
        if payload.mimeType == nil { payload.mimeType = mimeType }
        return (HTTPRequestBody(form(mimeType), source: source), payload)
    }

    /// The payload an upload completes: a live take's is the finished take's (its duration, waveform and size),
    /// known once the recorder finished it; any other's is `base`.
    static func finishedPayload(_ base: VoiceRecordingPayload, of item: UploadItem) throws(VoiceNoteError) -> VoiceRecordingPayload {
        guard case .live(let take) = item else { return base }
        guard let finished = take.payload else {
            throw VoiceNoteError(.internal, "the take's upload ended before the recorder finished the take")
        }
        return finished
    }

    /// The schemes an upload response's URL may have.
    static let uploadedSchemes: Set<String> = ["http", "https", "mxc"]

    /// Whether `url` is `scheme://…` of one of `uploadedSchemes`.
    static func isUploadedURL(_ url: String) -> Bool {
        guard let scheme = Location.scheme(of: url), uploadedSchemes.contains(scheme) else { return false }
        return url.dropFirst(scheme.count + 1).hasPrefix("//")
    }

    /// `payload` with the uploaded URL from the response's `urlKey` as `asset_url`, and its `thumb_url` when given.
    /// - Throws: `.format` when the response is not a JSON object with an absolute URL there.
    static func completed(_ payload: VoiceRecordingPayload, with response: HTTPPost.Response, urlKey: String) throws(VoiceNoteError) -> VoiceRecordingPayload {
        let parsed = response.body.withUnsafeBytes { bytes in
            Result { () throws(VoiceNoteError) in
                try JSONDocument(parsing: bytes, limits: .payload, what: "the upload response (HTTP \(response.code))").top
            }
        }
        let answer = try parsed.get()
        guard let url = answer[urlKey]?.string, VoiceRecordingPayload.isAbsoluteURL(url) else {
            throw VoiceNoteError(.format, "the upload response (HTTP \(response.code)) has no \"\(urlKey)\" URL")
        }
        // What every receiver will fetch: http(s), or Matrix's mxc:// content URI; never javascript:, data: or file:.
        guard Self.isUploadedURL(url) else {
            throw VoiceNoteError(.format, "the upload response (HTTP \(response.code)) names a \"\(urlKey)\" that is not an http(s) or mxc:// URL")
        }
        var payload = payload
        try payload.setAssetURL(url)
        if let thumb = answer["thumb_url"]?.string, Self.isUploadedURL(thumb) {
            var extra = payload.extraData
            extra["thumb_url"] = .string(thumb)
            try payload.setExtraData(extra)
        }
        return payload
    }

    /// Waits `seconds` on the options' clock (a back-off), or until `cancel`. - Throws: `.cancelled` after `cancel`.
    func pause(seconds: Double) throws(VoiceNoteError) {
        let clock = configuration.http.clock
        let deadline = clock.now + seconds
        let stopped = monitor.locked { () -> Bool in
            while !cancelled {
                if !clock.wait(on: monitor, until: deadline) { break }
            }
            return cancelled
        }
        if stopped { throw VoiceNoteError(.cancelled, "the upload was cancelled") }
    }

    /// Makes `post` the request `cancel` ends; false when the upload was cancelled already (nothing to send).
    func setCurrentPost(_ made: HTTPPost) -> Bool {
        monitor.locked { () -> Bool in
            post = made
            return !cancelled
        }
    }

    /// Whether the running upload can be gone on with later (its request came with a resumption hook or from a
    /// reservation): its server-side object is then kept when it fails.
    var isResumable: Bool {
        monitor.locked { request.map { $0.resumption.onReserved != nil || $0.resumption.reserved != nil } ?? false }
    }

    /// Whether `close` has begun (it cancels and then waits for the upload thread).
    var isClosing: Bool { monitor.locked { closeBegun } }

    /// Stores the object a Matrix or tus upload reserved (a content URI, an upload URL) and, when it is new, tells
    /// the request's resumption hook. - Throws: what the hook throws.
    func setReservedURI(_ uri: String, isNew: Bool = true) throws(VoiceNoteError) {
        let hook = monitor.locked { () -> (@Sendable (String) throws(VoiceNoteError) -> Void)? in
            reservedURI = uri
            return request?.resumption.onReserved
        }
        if isNew, let hook { try hook(uri) }
    }

    /// A progress state, unless the upload already ended (a final state is final) or was cancelled.
    func report(_ state: UploadState) {
        let reported = monitor.locked { () -> Bool in
            guard let current, !current.isFinal, !cancelled else { return false }
            self.current = state
            return true
        }
        if reported { events.emit(state) }
    }

    /// Ends the upload once: a success after `cancel` (the post-processor was running) is a cancellation.
    private func finish(_ state: UploadState) {
        let (final, completion) = monitor.locked { () -> (UploadState?, (@Sendable (UploadState) -> Void)?) in
            if let current, current.isFinal { return (nil, nil) }
            var state = state
            if case .uploaded = state, cancelled { state = .uploadFailed(VoiceNoteError(.cancelled, "the upload was cancelled")) }
            current = state
            post = nil
            monitor.broadcast()
            return (state, request?.completion)
        }
        guard let final else { return }
        completion?(final)
        events.emit(final)
    }
}
