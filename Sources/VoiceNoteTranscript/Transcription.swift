import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources

/// What a transcription tells, in order: words as they are recognised, then one end.
public enum TranscriptionEvent: Sendable {
    /// Words recognised since the last event (their times from the note's start).
    case words([TranscriptWord])
    /// The whole transcript (every word told before, or, read from the cache, all at once); `cached` when no audio
    /// was decoded for it. The last event.
    case finished(Transcript, cached: Bool)
    /// The transcription failed (`.cancelled` after `cancel`); the last event.
    case failed(VoiceNoteError)
}

/// One note's transcript, made on a thread of its own: decoded (`Decoders`, as the waveform), brought to the
/// recogniser's format (`SpeechInput`) and fed to a backend's session piece by piece, the words told as they come
/// (`events`). A transcript is kept in the media cache under the note's key and the recogniser's identity (a URL's
/// cache entry, a local file's identity: `FileSource.identity`), so asking again costs a cache read.
///
/// At most one note per CPU is recognised at once in the process (`RecognitionSlots`: a model is large and its work
/// all CPU); the others wait their turn. A damaged or silent note is not a failure: it finishes with the words heard
/// (none). `cancel` ends it at the next piece (or in its wait for a turn) with `.failed(.cancelled)`; `close` also ends its events, without waiting for a backend that blocks (the
/// thread then ends when the backend returns, its outcome unheard).
public final class Transcription: Sendable {
    /// How much audio a piece holds: small enough that a cancel is heard within ~0.1 s of audio decoding, large
    /// enough that feeding costs nothing.
    static let pieceSeconds = 0.1

    /// The events; subscribe before `start`.
    public let events: EventChannel<TranscriptionEvent>
    private let open: @Sendable () throws(VoiceNoteError) -> any ByteSource
    private let backend: any TranscriptionBackend
    private let cache: MediaCache
    private let cancellation = CancellationFlag()
    private let slots: RecognitionSlots
    private let state = Locked<(started: Bool, result: Transcript?, failure: VoiceNoteError?, cached: Bool)>((false, nil, nil, false))
    private let ended = Monitor()
    private let done = Locked(false)

    /// A transcription of the note `open` gives (called on the transcription's thread, so a download happens
    /// there), by `backend`.
    public convenience init(open: @escaping @Sendable () throws(VoiceNoteError) -> any ByteSource, backend: any TranscriptionBackend,
                            cache: MediaCache = .shared, dispatcher: any EventDispatcher = EventThread.shared) {
        self.init(open: open, backend: backend, cache: cache, dispatcher: dispatcher, slots: .shared)
    }

    /// The same, taking its turn among `slots` (tests: a process-wide limit of their own).
    init(open: @escaping @Sendable () throws(VoiceNoteError) -> any ByteSource, backend: any TranscriptionBackend,
         cache: MediaCache, dispatcher: any EventDispatcher, slots: RecognitionSlots) {
        self.open = open
        self.backend = backend
        self.cache = cache
        self.slots = slots
        events = EventChannel(dispatcher: dispatcher)
    }

    deinit { cancellation.cancel() }

    /// Starts the thread. `.misuse` when started before; `.noMemory` when no thread can start.
    public func start() throws(VoiceNoteError) {
        try state.withLock { (state) throws(VoiceNoteError) in
            guard !state.started else { throw VoiceNoteError(.misuse, "the transcription has already started") }
            state.started = true
        }
        do throws(VoiceNoteError) {
            let thread = try LibraryThread(name: "vn-transcribe") { [self] in run() }
            thread.detach()
        } catch {
            state.withLock { $0.started = false }  // not started: start may be called again, and wait refuses
            throw error
        }
    }

    /// Whether `start` was called.
    public var isStarted: Bool { state.withLock { $0.started } }

    /// Whether the transcript it finished with came from the cache.
    public var wasCached: Bool { state.withLock { $0.cached } }

    /// Why it failed, once it has.
    public var failure: VoiceNoteError? { state.withLock { $0.failure } }

    /// Ends the transcription at its next piece with `.failed(.cancelled)` (nothing when it has ended); one still
    /// waiting for its turn (`RecognitionSlots`) ends at once. Any thread.
    public func cancel() {
        cancellation.cancel()
        slots.wake()
    }

    /// Cancels and ends every subscription: no event is delivered after this returns. Idempotent.
    public func close() {
        cancel()
        events.close()
    }

    /// Waits up to `seconds` (nil: as long as it takes) for the end; the transcript, or nil when it failed or has
    /// not ended in time.
    public func wait(seconds: Double? = nil) -> (ended: Bool, transcript: Transcript?) {
        let deadline = seconds.map { MonotonicClock.shared.now + max(0, $0) }
        return ended.locked {
            while !done.withLock({ $0 }) {
                if let deadline {
                    if !MonotonicClock.shared.wait(on: ended, until: deadline) && !done.withLock({ $0 }) { return (false, nil) }
                } else {
                    ended.wait()
                }
            }
            return (true, state.withLock { $0.result })
        }
    }

    private func run() {
        let outcome: TranscriptionEvent
        do throws(VoiceNoteError) {
            outcome = try transcribe()
        } catch {
            outcome = .failed(error)
        }
        switch outcome {
        case .finished(let transcript, let cached): state.withLock { ($0.result, $0.cached) = (transcript, cached) }
        case .failed(let error): state.withLock { $0.failure = error }
        case .words: break
        }
        events.emit(outcome)
        ended.locked {
            done.withLock { $0 = true }
            ended.broadcast()
        }
    }

    private func transcribe() throws(VoiceNoteError) -> TranscriptionEvent {
        try cancellation.check("the transcription")
        let source = try open()
        let kept = Self.keptStore(of: source, cache: cache)
        let identity = backend.identity
        if let text = kept?.read(.transcript), let transcript = Transcript(record: text), transcript.recogniser == identity {
            return .finished(transcript, cached: true)
        }
        let turns = backend.takesTurns
        if turns { try slots.acquire(cancellation, for: source.name) }
        let recognised: Result<[TranscriptWord], VoiceNoteError>
        do throws(VoiceNoteError) { recognised = .success(try recognise(source)) } catch { recognised = .failure(error) }
        if turns { slots.release() }  // the session (and its model) is gone: recognise has returned
        let words = try recognised.get()
        let transcript = Transcript(words: words, recogniser: identity)
        kept?.write(transcript.record, as: .transcript)
        return .finished(transcript, cached: false)
    }

    /// The words of `source` by a session of the backend, begun and ended here (so its model is freed before the
    /// slot is given back).
    private func recognise(_ source: any ByteSource) throws(VoiceNoteError) -> [TranscriptWord] {
        let session = try backend.begin()
        var words: [TranscriptWord] = []
        let tell = { (found: [TranscriptWord]) in
            guard !found.isEmpty else { return }
            words += found
            self.events.emit(.words(found))
        }
        try feed(source, to: session, rate: backend.sampleRate, tell)
        try cancellation.check("the transcription of \(source.name)")
        tell(try session.finish())
        return words
    }

    /// Decodes `source` and feeds the session in pieces of `pieceSeconds`, checking for a cancel between them.
    private func feed(_ source: any ByteSource, to session: any TranscriptionSession, rate: Int,
                      _ tell: ([TranscriptWord]) -> Void) throws(VoiceNoteError) {
        let decoder = try Decoders.open(source, purpose: .analysis)
        let input = try SpeechInput(inputRate: decoder.outputRate, channels: decoder.outputChannels, outputRate: rate)
        let pieceLength = max(1, Int(Double(rate) * Self.pieceSeconds))
        var piece: [Int16] = []
        piece.reserveCapacity(pieceLength)
        func send(_ samples: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) {
            var at = 0
            while at < samples.count {
                let taken = min(pieceLength - piece.count, samples.count - at)
                piece.append(contentsOf: UnsafeBufferPointer(rebasing: samples[at..<(at + taken)]))
                at += taken
                if piece.count == pieceLength {
                    try cancellation.check("the transcription of \(source.name)")
                    tell(try piece.withUnsafeBufferPointer { (all) throws(VoiceNoteError) in try session.feed(all) })
                    piece.removeAll(keepingCapacity: true)
                }
            }
        }
        var failure: VoiceNoteError?  // the session's, the conversion's or a cancel: the transcription's end
        do throws(VoiceNoteError) {
            while failure == nil, try decoder.decodeNext({ chunk in
                do throws(VoiceNoteError) { try input.convert(chunk.samples, send) } catch { failure = error }
            }) {}
        } catch where error.status == .format && failure == nil {
            // The decoder gave up on damage mid-stream (not a file that is no audio: `open` refused that above).
            Log.write(.info, "transcript of \(source.name): \(error.message); finishing with the words heard")
        }
        if let failure { throw failure }
        try input.finish(send)
        if !piece.isEmpty { tell(try piece.withUnsafeBufferPointer { (all) throws(VoiceNoteError) in try session.feed(all) }) }
    }

    /// The transcript kept for the note at `location`, by any recogniser, read without the network or decoding
    /// (`voicenote search`); nil when none is kept. - Throws: as `RemoteMedia.keptAnalysis(at:options:key:cache:)`.
    public static func kept(at location: Location, options: () throws(VoiceNoteError) -> HTTPOptions, key: String? = nil,
                            cache: MediaCache = .shared) throws(VoiceNoteError) -> Transcript? {
        try RemoteMedia.keptAnalysis(at: location, options: options, key: key, cache: cache)?.read(.transcript).flatMap { Transcript(record: $0) }
    }

    /// Where `source`'s transcript is kept: its cache entry's store (a URL), or the media cache under a local file's
    /// identity; nil when neither (a host's byte source), or the cache is off.
    static func keptStore(of source: any ByteSource, cache: MediaCache) -> KeptAnalysis? {
        if let kept = source.keptAnalysis { return kept }
        if let file = source as? FileSource, let identity = file.identity { return cache.keptAnalysis(for: identity) }
        return nil
    }
}
