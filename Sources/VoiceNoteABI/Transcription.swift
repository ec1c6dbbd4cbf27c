import CVoiceNote
import Glibc
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteNetwork
import VoiceNoteTranscript

/// A recogniser behind a `vn_transcriber` handle.
final class TranscriberHandle: Sendable {
    let backend: any TranscriptionBackend
    init(_ backend: any TranscriptionBackend) { self.backend = backend }
}

@c @implementation public func vn_transcriber_create_pocketsphinx(
    _ modelDirectory: UnsafePointer<CChar>?, _ language: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let directory = try modelDirectory.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "model_dir") }
        let name = try language.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "language") }
        out.pointee = Handles.make(TranscriberHandle(try PocketSphinxBackend(modelDirectory: directory, language: name)))
    }
}

@c @implementation public func vn_transcriber_create_callbacks(
    _ identity: UnsafePointer<CChar>?, _ sampleRate: Int32, _ begin: vn_transcriber_begin_fn?, _ feed: vn_transcriber_feed_fn?,
    _ finish: vn_transcriber_finish_fn?, _ end: vn_transcriber_end_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let name = try nonEmptyString(identity, "identity")
        guard name.utf8.count <= 200, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw VoiceNoteError(.invalidArgument, "a recogniser's identity is 1…200 bytes with no control characters")
        }
        guard (8000...48000).contains(sampleRate) else {
            throw VoiceNoteError(.invalidArgument, "a recogniser takes 8000…48000 Hz, not \(sampleRate)")
        }
        let hooks = HostRecogniser.Hooks(begin: try required(begin, "begin"), feed: try required(feed, "feed"),
                                         finish: try required(finish, "finish"), end: try required(end, "end"),
                                         userData: userData, release: release)
        out.pointee = Handles.make(TranscriberHandle(HostRecogniser(identity: name, sampleRate: Int(sampleRate), hooks: hooks)))
    }
}

@c @implementation public func vn_transcriber_destroy(_ transcriber: OpaquePointer?) {
    _ = Handles.remove(transcriber, as: TranscriberHandle.self)
}

/// The words a host hook adds, behind a `vn_transcript_words` handle that lives for one hook call.
final class WordCollector: Sendable {
    let words = Locked<[TranscriptWord]>([])

    /// Runs `hook` with a handle to a fresh collector; the words it added, or its status as an error.
    static func collect(_ what: String, _ hook: (OpaquePointer) -> Int32) throws(VoiceNoteError) -> [TranscriptWord] {
        let collector = WordCollector()
        let handle = Handles.make(collector)
        let status = hook(handle)
        _ = Handles.remove(handle, as: WordCollector.self)
        if let failure = hookFailure(status, "the host recogniser's \(what) hook") { throw failure }
        return collector.words.withLock { $0 }
    }
}

@c @implementation public func vn_transcript_words_add(
    _ words: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ start: Double, _ end: Double, _ confidence: Double
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let collector = try Handles.get(words, as: WordCollector.self, "words")
        let word = try TranscriptWord(text: try utf8String(text, "text"), start: start, end: end, confidence: confidence)
        collector.words.withLock { $0.append(word) }
    }
}

/// A host's recogniser: its hooks as a `TranscriptionBackend`. `release` runs when the last reference goes (the
/// handle destroyed and every transcription using it ended).
final class HostRecogniser: TranscriptionBackend, @unchecked Sendable {
    struct Hooks {
        let begin: vn_transcriber_begin_fn, feed: vn_transcriber_feed_fn, finish: vn_transcriber_finish_fn
        let end: vn_transcriber_end_fn
        let userData: UnsafeMutableRawPointer?
        let release: vn_release_fn?
    }

    let identity: String
    let sampleRate: Int
    let hooks: Hooks

    init(identity: String, sampleRate: Int, hooks: Hooks) {
        self.identity = identity
        self.sampleRate = sampleRate
        self.hooks = hooks
    }

    deinit { hooks.release?(hooks.userData) }

    func begin() throws(VoiceNoteError) -> any TranscriptionSession {
        var session: UnsafeMutableRawPointer?
        let status = hooks.begin(hooks.userData, &session)
        if let failure = hookFailure(status, "the host recogniser \(identity)'s begin hook") { throw failure }
        return Session(self, session)
    }

    final class Session: TranscriptionSession {
        let recogniser: HostRecogniser
        let state: UnsafeMutableRawPointer?
        init(_ recogniser: HostRecogniser, _ state: UnsafeMutableRawPointer?) {
            self.recogniser = recogniser
            self.state = state
        }
        deinit { recogniser.hooks.end(recogniser.hooks.userData, state) }

        func feed(_ samples: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> [TranscriptWord] {
            let hooks = recogniser.hooks
            return try WordCollector.collect("feed") { hooks.feed(hooks.userData, state, samples.baseAddress, samples.count, $0) }
        }

        func finish() throws(VoiceNoteError) -> [TranscriptWord] {
            let hooks = recogniser.hooks
            return try WordCollector.collect("finish") { hooks.finish(hooks.userData, state, $0) }
        }
    }
}

@c @implementation public func vn_transcription_create(
    _ location: UnsafePointer<CChar>?, _ transcriber: OpaquePointer?, _ http: OpaquePointer?, _ loop: OpaquePointer?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let parsed = try Location(try utf8String(location, "location"))
        let backend = try Handles.get(transcriber, as: TranscriberHandle.self, "transcriber").backend
        let settings = try HTTPOptionsHandle.value(of: http, or: HTTPOptions())
        let transcription = Transcription(open: { () throws(VoiceNoteError) in try RemoteMedia.open(parsed, options: { settings }) },
                                          backend: backend, dispatcher: try dispatcher(for: loop))
        out.pointee = Handles.make(transcription)
    }
}

/// Runs a call on the transcription behind a handle.
private func withTranscription(_ handle: OpaquePointer?, _ body: (Transcription) throws(VoiceNoteError) -> Void) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try body(try Handles.get(handle, as: Transcription.self, "transcription")) }
}

@c @implementation public func vn_transcription_subscribe(
    _ transcription: OpaquePointer?, _ callback: vn_transcription_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ outId: UnsafeMutablePointer<vn_subscription_id>?
) -> Int32 {
    withTranscription(transcription) { (job) throws(VoiceNoteError) in
        try subscribeC(job.events, callback, userData, release, outId) { event, subscriber in
            event.withCEvent { subscriber.function(subscriber.userData, $0) }
        }
    }
}

@c @implementation public func vn_transcription_start(_ transcription: OpaquePointer?) -> Int32 {
    withTranscription(transcription) { (job) throws(VoiceNoteError) in try job.start() }
}

@c @implementation public func vn_transcription_cancel(_ transcription: OpaquePointer?) -> Int32 {
    withTranscription(transcription) { job in job.cancel() }
}

@c @implementation public func vn_transcription_wait(
    _ transcription: OpaquePointer?, _ timeoutMs: Int32, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    outJSON?.pointee = nil
    return withTranscription(transcription) { (job) throws(VoiceNoteError) in
        let out = try required(outJSON, "out_json")
        guard job.isStarted else { throw VoiceNoteError(.misuse, "the transcription was not started") }
        let (ended, transcript) = job.wait(seconds: timeoutMs < 0 ? nil : Double(timeoutMs) / 1000)
        guard ended else { throw VoiceNoteError(.busy, "the transcription has not ended within \(timeoutMs) ms") }
        guard let transcript else { throw job.failure ?? VoiceNoteError(.internal, "the transcription ended without a transcript") }
        out.pointee = try ownedCString(transcript.json())
    }
}

@c @implementation public func vn_transcription_destroy(_ transcription: OpaquePointer?) {
    Handles.remove(transcription, as: Transcription.self)?.close()
}

extension vn_transcription_event: CEventStruct {}

extension TranscriptionEvent: CEventConvertible {
    func fill(_ cEvent: inout vn_transcription_event, _ memory: CEventMemory) {
        func words(_ words: [TranscriptWord]) {
            let cWords = words.map { vn_transcript_word(text: memory.string($0.text), start_s: $0.start, end_s: $0.end, confidence: $0.confidence) }
            var count = 0
            cEvent.words = memory.values(cWords, count: &count)
            cEvent.word_count = count
        }
        switch self {
        case .words(let found):
            cEvent.kind = Int32(VN_TRANSCRIPTION_EVENT_WORDS.rawValue)
            words(found)
        case .finished(let transcript, let cached):
            cEvent.kind = Int32(VN_TRANSCRIPTION_EVENT_FINISHED.rawValue)
            words(transcript.words)
            cEvent.text = memory.string(transcript.text)
            cEvent.cached = cached ? 1 : 0
            cEvent.recogniser = memory.string(transcript.recogniser)
        case .failed(let error):
            cEvent.kind = Int32(VN_TRANSCRIPTION_EVENT_FAILED.rawValue)
            memory.failure(error, status: &cEvent.status, message: &cEvent.message)
        }
    }
}

@c @implementation public func vn_payload_copy_transcript(
    _ payload: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    outJSON?.pointee = nil
    return PayloadHandle.read(payload) { (payload) throws(VoiceNoteError) in
        let out = try required(outJSON, "out_json")
        guard let transcript = payload.transcript else { throw VoiceNoteError(.notFound, "the payload carries no transcript") }
        out.pointee = try ownedCString(transcript.json())
    }
}

@c @implementation public func vn_payload_set_transcript(_ payload: OpaquePointer?, _ json: UnsafePointer<CChar>?) -> Int32 {
    PayloadHandle.change(payload) { (payload) throws(VoiceNoteError) in
        guard let json else { return try payload.setTranscript(nil) }
        let text = try utf8String(json, "transcript_json")
        guard let transcript = Transcript(jsonValue: try JSONDocument(parsing: text, limits: .payload, what: "a transcript").top.value) else {
            throw VoiceNoteError(.format, "not a transcript: {\"recogniser\", \"words\": [{\"text\", \"start\", \"end\", \"confidence\"}…]} with words of no spaces, 0 ≤ start ≤ end, confidence 0…1, at most \(Transcript.largestCarried) words")
        }
        try payload.setTranscript(transcript)
    }
}

@c @implementation public func vn_player_seek_to_word(_ player: OpaquePointer?, _ word: UnsafePointer<vn_transcript_word>?) -> Int32 {
    guard let word, word.pointee.start_s.isFinite, word.pointee.start_s >= 0 else {
        return abiCall { () throws(VoiceNoteError) in
            throw VoiceNoteError(.invalidArgument, "a word to seek to has a finite start ≥ 0")
        }
    }
    return vn_player_seek(player, Transcript.seekTime(ofWordAt: word.pointee.start_s))
}
