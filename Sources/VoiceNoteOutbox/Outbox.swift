import VoiceNoteAttachments
import VoiceNoteCore

/// A durable outbox: every note added is copied into the outbox's directory and recorded in its SQLite database
/// (synced write-ahead log) before `add` returns, then sent by one library thread (`vn-outbox`), oldest first,
/// through an `Uploader` to the outbox's destination. It survives SIGKILL and power loss: at the next start, items
/// found mid-send go on where the server allows (a tus upload from its offset, a Matrix content URI reserved once)
/// and start again otherwise (multipart and raw, each attempt carrying the note's `Idempotency-Key`); a transient
/// failure waits with exponential back-off and jitter, a permanent one (4xx) stays `failed` for the host. Each
/// uploaded payload is handed to the host (`uploaded`) until it acknowledges it: exactly once across crashes for a
/// host that records its message and the acknowledgement together, at least once otherwise.
///
/// The destination's credentials are given at each start (`UploadOptions`), never written to disk.
public final class Outbox: @unchecked Sendable {
    /// The outbox's directory.
    public let directory: String
    /// The subscribers of the outbox's events.
    public let events: EventChannel<OutboxEvent>

    private let store: OutboxStore
    /// Where this outbox sends: the items added for it (an item added for another endpoint or mode waits for an
    /// outbox opened for that one).
    private let destination: OutboxItem.Destination
    private let uploader: Uploader
    private var options: OutboxOptions
    private let clock: any VoiceNoteClock
    private let monitor = Monitor()
    private var worker: LibraryThread?
    private var started = false
    private var closed = false
    /// Set by `add`, `retry` and the back-off's end: the worker looks for work again.
    private var poked = false
    /// The item the worker is sending, and whether the host cancelled it meanwhile.
    private var sending: Int64?
    private var sendingCancelled = false
    /// When each waiting item's back-off ends (clock time); a database that could not be read waits under id 0.
    private var retryTimes: [Int64: Double] = [:]

    /// Opens (creating it when missing) the outbox at `directory` for uploads to `endpoint` with `upload`'s
    /// settings, delivering events through `dispatcher`. Nothing is sent before `start`.
    /// - Throws: `.busy` while another outbox has the directory open; `.format` for a damaged database (left as it
    ///   is); `.unsupported` without SQLite or for a later schema; `.permission` for a directory we cannot trust;
    ///   the uploader's `.invalidArgument` for an endpoint that is not http(s).
    public init(directory: String, endpoint: String, upload: UploadOptions = UploadOptions(),
                options: OutboxOptions = OutboxOptions(),
                dispatcher: any EventDispatcher = EventThread.shared) throws(VoiceNoteError) {
        uploader = try Uploader(endpoint: endpoint, options: upload, dispatcher: dispatcher)
        store = try OutboxStore(directory: directory)
        self.directory = directory
        destination = OutboxItem.Destination(endpoint: endpoint, mode: upload.mode)
        self.options = options
        clock = upload.http.clock
        events = EventChannel(dispatcher: dispatcher)
    }

    /// Starts sending: first the `uploaded` event of every item not yet acknowledged (oldest first), then the
    /// queue. Subscribe before. - Throws: `.misuse` after `close` or when started already.
    public func start() throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard !closed else { throw VoiceNoteError(.misuse, "the outbox was closed") }
            guard !started else { throw VoiceNoteError(.misuse, "the outbox is started already") }
            started = true
        }
        // Ends with the uploader's events (close): nothing to keep.
        _ = try? uploader.events.subscribe({ [weak self] state in
            guard let self, case .uploading(let progress) = state,
                  let id = self.monitor.locked({ self.sending }) else { return }
            self.events.emitCoalescing(.sending(id: id, progress: progress))
        }, release: nil)
        for item in try serialized({ () throws(VoiceNoteError) in try store.items() }) where item.state == .uploaded {
            if let payload = item.uploaded { events.emit(.uploaded(id: item.id, payload: payload)) }
        }
        let thread = try LibraryThread(name: "vn-outbox") { [self] in run() }
        let orphaned = monitor.locked { () -> Bool in
            if !closed { worker = thread }
            return closed
        }
        if orphaned { thread.join() }
    }

    /// Adds the note at `path` (copied: the host may delete its own file once this returns) with the payload its
    /// upload completes (nil: made from the file, as `Uploader.upload` does), durable on return. Returns its id.
    /// - Throws: `.misuse` after `close`; the file's statuses (`.notFound`, `.invalidArgument`); `.noSpace` and the
    ///   database's statuses (then nothing was added).
    /// `held`: someone else is sending the note (the flow's uploader, while the take was recorded); the item waits
    /// `held` for `release`, and is sent by the outbox only if that upload fails or the process ends first.
    @discardableResult
    public func add(path: String, payload: VoiceRecordingPayload? = nil, held: Bool = false) throws(VoiceNoteError) -> Int64 {
        let item = try serialized { () throws(VoiceNoteError) in
            try store.add(source: path, payload: payload, destination: destination, held: held)
        }
        events.emit(.added(id: item.id))
        if !held { poke() }
        return item.id
    }

    /// Ends the hold of item `id`: the other upload succeeded with `uploaded` (the item is `uploaded` and handed
    /// off as if the outbox had sent it), or failed (nil: the outbox sends the item itself).
    /// - Throws: `.notFound` unless item `id` is `held`; `.misuse` after `close`.
    public func release(_ id: Int64, uploaded: VoiceRecordingPayload?) throws(VoiceNoteError) {
        let found = try serialized { () throws(VoiceNoteError) -> Bool in
            guard let item = try store.item(id: id), item.state == .held else { return false }
            if let uploaded { try store.setUploaded(id: id, uploaded) } else { _ = try store.requeue(id: id, from: [.held]) }
            return true
        }
        guard found else { throw VoiceNoteError(.notFound, "the outbox has no held item \(id)") }
        if let uploaded { events.emit(.uploaded(id: id, payload: uploaded)) } else { poke() }
    }

    /// Sets how transient failures are retried (from the next failure on).
    public func setOptions(_ changed: OutboxOptions) { monitor.locked { options = changed } }

    /// Every item, oldest first. - Throws: `.misuse` after `close`; the database's statuses.
    public func items() throws(VoiceNoteError) -> [OutboxItem] {
        try serialized { () throws(VoiceNoteError) in try store.items() }
    }

    /// The host sent the message of uploaded item `id`: the item and its copy go (`removed`).
    /// - Throws: `.notFound` unless item `id` is `uploaded`; `.misuse` after `close`.
    public func acknowledge(_ id: Int64) throws(VoiceNoteError) {
        guard try serialized({ () throws(VoiceNoteError) in try store.remove(id: id, onlyIn: [.uploaded]) }) != nil else {
            throw VoiceNoteError(.notFound, "the outbox has no uploaded item \(id)")
        }
        events.emit(.removed(id: id))
    }

    /// Sends item `id` again now: a `failed` item (after the host fixed what it needed), or a `waiting` one before
    /// its back-off ends. - Throws: `.notFound` unless item `id` is `failed` or `waiting`; `.misuse` after `close`.
    public func retry(_ id: Int64) throws(VoiceNoteError) {
        guard try serialized({ () throws(VoiceNoteError) -> Bool in
            retryTimes[id] = nil
            return try store.requeue(id: id)
        }) else {
            throw VoiceNoteError(.notFound, "the outbox has no failed or waiting item \(id)")
        }
        poke()
    }

    /// Removes item `id` whatever its state (`removed`); one being sent is cancelled first (a tus upload is deleted
    /// on the server). Its payload, if it was uploaded, is never offered again.
    /// - Throws: `.notFound` for no such item; `.misuse` after `close`.
    public func cancel(_ id: Int64) throws(VoiceNoteError) {
        let isSending = monitor.locked { () -> Bool in
            guard sending == id else { return false }
            sendingCancelled = true
            return true
        }
        if isSending { uploader.cancel() }
        guard try serialized({ () throws(VoiceNoteError) -> OutboxItem? in
            retryTimes[id] = nil
            return try store.remove(id: id)
        }) != nil else {
            throw VoiceNoteError(.notFound, "the outbox has no item \(id)")
        }
        events.emit(.removed(id: id))
    }

    /// Stops sending (an item being sent is interrupted and goes on at the next start), waits for the worker and
    /// ends the events: no callback runs after this returns. The directory stays as it is.
    public func close() {
        let thread = monitor.locked { () -> LibraryThread? in
            closed = true
            monitor.broadcast()
            defer { worker = nil }
            return worker
        }
        uploader.close()
        thread?.joinOrDetach()
        monitor.locked { store.close() }
        events.close()
    }

    deinit { close() }

    /// Runs `body` on the store under the monitor (the store's connection is used by one thread at a time).
    private func serialized<T>(_ body: () throws(VoiceNoteError) -> T) throws(VoiceNoteError) -> T {
        try monitor.locked { () throws(VoiceNoteError) -> T in
            guard !closed else { throw VoiceNoteError(.misuse, "the outbox was closed") }
            return try body()
        }
    }

    private func poke() {
        monitor.locked {
            poked = true
            monitor.broadcast()
        }
    }

    // MARK: the worker

    private func run() {
        while let item = nextItem() {
            send(item)
        }
    }

    /// The next item to send, waiting (unbounded only while there is nothing to do: `close` and `add` wake it) for
    /// one; nil once the outbox closes.
    private func nextItem() -> OutboxItem? {
        monitor.locked { () -> OutboxItem? in
            while !closed {
                poked = false
                let now = clock.now
                for (id, due) in retryTimes where due <= now {
                    retryTimes[id] = nil
                    if id != 0 { _ = try? store.requeue(id: id, from: [.waiting]) }
                }
                do throws(VoiceNoteError) {
                    if let item = try store.firstQueued(for: destination), try store.beginAttempt(id: item.id) {
                        sending = item.id
                        sendingCancelled = false
                        return item
                    }
                } catch {
                    Log.write(.warning, "the outbox cannot read its database: \(error.message)")
                    retryTimes[0] = retryTimes[0] ?? clock.now + options.retryBase
                }
                let soonest = retryTimes.values.min() ?? .infinity
                while !closed && !poked {
                    if !clock.wait(on: monitor, until: soonest) { break }
                }
            }
            return nil
        }
    }

    /// One attempt of `item`, its outcome recorded before it is told.
    private func send(_ item: OutboxItem) {
        let id = item.id
        // Weak: the uploader keeps its last request (for a retry), and the outbox owns the uploader.
        let resumption = UploadResumption(reserved: item.reserved, key: item.key) { [weak self] (reserved: String) throws(VoiceNoteError) in
            guard let self else { throw VoiceNoteError(.misuse, "the outbox was closed") }
            try self.serialized { () throws(VoiceNoteError) in try self.store.setReserved(id: id, reserved) }
        }
        guard !monitor.locked({ sendingCancelled || closed }) else {  // cancelled or closed as it was picked
            monitor.locked { sending = nil }
            return
        }
        events.emit(.sending(id: id, progress: 0))
        var outcome: UploadState?
        do throws(VoiceNoteError) {
            try uploader.upload(.file(item.path), payload: item.payload, resumption: resumption)
            outcome = uploader.wait()
        } catch {
            outcome = .uploadFailed(error)
        }
        let event = monitor.locked { () -> OutboxEvent? in
            defer { sending = nil }
            if sendingCancelled || closed { return nil }  // cancel removed it; close leaves it `sending` → `queued`
            do throws(VoiceNoteError) {
                switch outcome {
                case .uploaded(let payload)?:
                    try store.setUploaded(id: id, payload)
                    return .uploaded(id: id, payload: payload)
                case .uploadFailed(let error)? where OutboxOptions.isTransient(error):
                    let delay = options.backoff(attempts: item.attempts + 1, random: Double.random(in: 0...1))
                    try store.endAttempt(id: id, state: .waiting, error: error)
                    retryTimes[id] = clock.now + delay
                    return .waiting(id: id, error: error, retryIn: delay)
                case .uploadFailed(let error)?:
                    try store.endAttempt(id: id, state: .failed, error: error)
                    return .failed(id: id, error: error)
                default:
                    let error = VoiceNoteError(.internal, "the outbox's upload ended in no final state")
                    try store.endAttempt(id: id, state: .failed, error: error)
                    return .failed(id: id, error: error)
                }
            } catch {
                // The outcome could not be recorded: the item stays `sending`, so the next start sends it again.
                Log.write(.warning, "the outbox cannot record item \(id)'s outcome: \(error.message)")
                return nil
            }
        }
        if let event { events.emit(event) }
    }
}
