import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteWaveform

/// The item a queue's data source is asked about.
public struct QueueItem {
    /// The location as the player was given it.
    public let location: PlayerLocation
    /// The key the `itemChanged` event named for it: the URL's key (or the URL), the absolute path, or a source's
    /// name.
    public let key: String
    /// Its identity.
    let locationKey: LocationKey
}

/// A queue's data source (Stream's `AudioQueuePlayerDatasource`): the location to play after `current`, or nil to
/// end the queue. A hook: called synchronously on the player's decoder thread (`vn-player`), with no library lock
/// held; it may call into the player, destroy it included. It may be asked more than once per item: 5 s before the
/// end (to fetch a remote answer into the cache ahead), when the item's audio is decoded to its end, and when it
/// has played to its end (the last answer decides).
public typealias QueueDataSource = @Sendable (_ current: QueueItem) -> PlayerLocation?

/// What a queue knows of the loudness of a location its data source answered (a message's payload's), so levelled
/// playback needs no pre-pass for it; nil when it knows none. Called on the decoder thread with no library lock held.
public typealias QueueLoudness = @Sendable (_ location: PlayerLocation) -> Loudness?

/// The queue mode (docs/queue.md): with a data source the player asks it for the next location at the end of an
/// item and plays it back to back; `next()` skips ahead.
extension Player {
    /// The queue's part of the shared state: changed only here (the host's calls below, and the methods the load
    /// and the decoder thread call).
    struct QueueState {
        /// The queue's data source; the player is a queue player while it is set.
        fileprivate(set) var dataSource: QueueDataSource?
        /// The loudness of the data source's answers, when it knows them.
        fileprivate(set) var loudness: QueueLoudness?
        /// `next()` was called and the decoder thread has not asked the data source yet.
        fileprivate(set) var skipRequested = false
        /// Locations that failed to load since an item last loaded: an answer naming one ends the queue.
        fileprivate(set) var failedKeys: Set<LocationKey> = []
        /// Where a queue returns once the item a load jumped to has played (`PlayerConfiguration.returnsToInterrupted`).
        fileprivate(set) var returnPoint: ReturnPoint?
        /// "Play unplayed": the data source's answers that are listened are passed over.
        fileprivate(set) var skipsListened = false

        /// The data source, taken away (the player is closing).
        mutating func takeDataSource() -> QueueDataSource? {
            defer { dataSource = nil; loudness = nil }
            return dataSource
        }

        /// Whether `next()` asked for a skip; the request is taken.
        mutating func takeSkipRequest() -> Bool {
            defer { skipRequested = false }
            return skipRequested
        }

        /// A load replaces any skip asked before it.
        mutating func dropSkipRequest() { skipRequested = false }

        /// `key` failed to load.
        mutating func noteFailure(of key: LocationKey) { failedKeys.insert(key) }

        /// An item loaded (or the host loaded one): the failures in a row start again.
        mutating func forgetFailures() { failedKeys.removeAll() }

        /// `key` is the current item now: a return point waiting for it is used up.
        mutating func reached(_ key: LocationKey) {
            if returnPoint?.key == key { returnPoint = nil }
        }

        /// A stop: no return.
        mutating func forgetReturn() { returnPoint = nil }
    }

    /// The item a load interrupted while it played, and the item after whose end it plays again.
    struct ReturnPoint {
        let location: PlayerLocation
        let key: LocationKey
        let after: LocationKey
    }

    /// Sets the data source (nil leaves queue mode) and, when it knows them, the loudness of its answers (levelled
    /// playback then needs no pre-pass for them); the old ones are released once no call of them runs any more.
    /// Does nothing after `close`.
    public func setDataSource(_ dataSource: QueueDataSource?, loudness: QueueLoudness? = nil) {
        var old = dataSource
        var oldLoudness = dataSource == nil ? nil : loudness
        monitor.locked {
            guard !shared.closed else { return }
            swap(&old, &shared.queue.dataSource)
            swap(&oldLoudness, &shared.queue.loudness)
        }
        old = nil  // released with no lock held
        oldLoudness = nil
    }

    /// The loudness the queue knows for `location`, a data source's answer (decoder thread, no lock held).
    func queueLoudness(of location: PlayerLocation) -> Loudness? {
        guard let loudness = monitor.locked({ shared.queue.loudness }), let figures = loudness(location),
              figures.isPlausible else { return nil }
        return figures
    }

    /// Whether a data source is set.
    public var isQueue: Bool { monitor.locked { shared.queue.dataSource != nil } }

    /// "Play unplayed": with `true`, the queue passes over the notes that are listened (`PlayerEvent.listened`, kept
    /// in the resume store across processes): the data source is asked again after each such answer, so the queue
    /// plays the unlistened notes in order and ends after the last. A load by the host plays what it names, listened
    /// or not. Off by default; takes effect at the next question to the data source.
    public func setSkipsListened(_ skips: Bool) {
        monitor.locked { shared.queue.skipsListened = skips }
    }

    /// Whether the queue passes over listened notes (`setSkipsListened`).
    public var skipsListened: Bool { monitor.locked { shared.queue.skipsListened } }

    /// The most listened answers passed over in one question: a data source that keeps answering listened notes
    /// (or loops among them) ends the queue after this many.
    static let maximumListenedPassed = 10_000

    /// Skips to the next item now: the decoder thread asks the data source about the current item (or the last one
    /// that failed to load) and plays the answer; the current item is left (its position kept for a later load).
    /// No answer stops the player, as at the end of the queue.
    /// - Throws: `.misuse` without a data source, with nothing loaded, or after `close`; `.busy` when the activate
    ///   hook refused.
    public func next() throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard !shared.closed else { throw VoiceNoteError(.misuse, "the player was destroyed") }
            guard shared.queue.dataSource != nil else { throw VoiceNoteError(.misuse, "next() needs a data source: set one first") }
            guard shared.location != nil else { throw VoiceNoteError(.misuse, "next() with nothing loaded: load a location first") }
        }
        try activateSession()
        defer { endActivation() }
        monitor.locked {
            guard !shared.closed else { return }
            shared.queue.skipRequested = true
            shared.wantsPlaying = true
            // A read of the current item waiting for the network gives way (taken as an interruption, not a failure;
            // while loading, the load gives way to the skip).
            if let source = shared.source?.source as? any ArrivingSource {
                shared.interruptions &+= 1
                source.cancel()
            }
            monitor.broadcast()
        }
        configuration.focusGroup?.take(by: self, for: .playback)
    }

    /// Shared: a load of `key` by the host. A queue player that plays a path or URL remembers it to return to once
    /// `key` has played (the first item interrupted, when the host jumps on again); any other load forgets that.
    func noteInterruption(by key: LocationKey) {
        guard configuration.returnsToInterrupted, shared.queue.dataSource != nil, shared.context.state == .playing,
              let location = shared.location, let current = shared.key, current.keepsResumePosition,
              current != key, shared.queue.returnPoint?.key != key else {
            shared.queue.returnPoint = nil
            return
        }
        let interrupted = shared.queue.returnPoint.map { ($0.location, $0.key) } ?? (location, current)
        shared.queue.returnPoint = ReturnPoint(location: interrupted.0, key: interrupted.1, after: key)
    }

    /// Shared: the current item, as the data source is asked about it.
    func currentQueueItem() -> QueueItem? {
        guard let location = shared.location, let key = shared.key else { return nil }
        return QueueItem(location: location, key: key.text(sourceName: location.displayName), locationKey: key)
    }

    /// Asks the data source about `item` (decoder thread, no lock held); nil without one. After the item a load
    /// jumped to, the answer is the item that load interrupted (its return point) instead.
    func askDataSource(about item: QueueItem) -> PlayerLocation? {
        let (dataSource, returnPoint) = monitor.locked { (shared.queue.dataSource, shared.queue.returnPoint) }
        guard let dataSource else { return nil }
        if let returnPoint, returnPoint.after == item.locationKey { return returnPoint.location }
        var answer = dataSource(item)
        var passed = 0
        while let location = answer, let key = try? location.key(), isPassedOver(key) {
            passed += 1
            guard passed < Self.maximumListenedPassed, key != item.locationKey else { return nil }
            answer = dataSource(QueueItem(location: location, key: key.text(sourceName: location.displayName), locationKey: key))
        }
        return answer
    }

    /// Whether an answer of the data source is passed over: "play unplayed" is on and it is listened (the store's
    /// file is read with no lock held).
    private func isPassedOver(_ key: LocationKey) -> Bool {
        let (skips, heardHere, store) = monitor.locked {
            (shared.queue.skipsListened, shared.resumePositions.isListenedHere(key), shared.resumePositions.store)
        }
        guard skips else { return false }
        if heardHere { return true }
        guard let store, let text = key.storeKey else { return false }
        return store.isListened(text)
    }

    /// Why the decoder thread moves the queue on.
    enum QueueAdvance {
        /// The item played to its end (`finished` was sent); `played`: it gave the device any audio.
        case finished(played: Bool)
        /// The item failed to load (`failed` was sent).
        case failed
        /// `next()`.
        case skipped
    }

    /// Moves the queue on from the current item (decoder thread, no lock held): asks the data source and loads its
    /// answer, or, when there is none, runs `whenEnded` (with the monitor held). Nothing happens when a load,
    /// control call or close came meanwhile (from the hook itself, too): they decide.
    func advanceQueue(_ reason: QueueAdvance, generation: UInt64, serial: UInt64, whenEnded: () -> Void) {
        if case .failed = reason, !backOffAfterFailedLoads(generation: generation, serial: serial, whenEnded: whenEnded) { return }
        guard let current = monitor.locked({ currentQueueItem() }) else { return }
        let answer = askDataSource(about: current)
        let loudness = answer.flatMap { queueLoudness(of: $0) }
        monitor.locked {
            guard !shared.closed, shared.generation == generation, shared.restart.serial == serial, shared.load == nil else { return }
            guard let answer else { return whenEnded() }
            let key: LocationKey
            do throws(VoiceNoteError) {
                key = try answer.key()
            } catch {
                shared.context.lastError = error
                events.emit(.failed(error))
                return whenEnded()
            }
            // An answer that failed since an item last loaded would loop, and so would an item without audio that
            // follows itself: the queue ends instead.
            guard !shared.queue.failedKeys.contains(key) else { return whenEnded() }
            if case .finished(played: false) = reason, key == shared.key { return whenEnded() }
            let autoplay: Bool
            switch reason {
            case .finished: autoplay = true
            case .failed:
                // A stop or pause the host made while the data source was asked holds for the next item.
                guard !shared.stopAfterLoad else { return whenEnded() }
                autoplay = shared.wantsPlaying
            case .skipped:
                autoplay = true
                haltKeepingPosition()
            }
            beginLoad(answer, key: key, autoplay: autoplay, durationHint: nil, loudness: loudness)
        }
    }

    /// Loads in a row that may fail before a queue stops: a channel of broken notes must not become one request per
    /// message at full speed after one tap on play.
    static let maximumConsecutiveLoadFailures = 3
    /// The pause after the first failed load of a row, in seconds; it doubles with each further one.
    static let firstFailureBackoff = 0.25

    /// After a failed load (decoder thread, no lock held): ends the queue with a `failed` event saying why once
    /// `maximumConsecutiveLoadFailures` loads in a row failed, else waits before the next one (0.25 s, then
    /// 0.5 s… on the configuration's clock; a load, control call or close ends the wait). Returns whether the
    /// queue goes on.
    private func backOffAfterFailedLoads(generation: UInt64, serial: UInt64, whenEnded: () -> Void) -> Bool {
        monitor.locked {
            let still = { !self.shared.closed && self.shared.generation == generation && self.shared.restart.serial == serial && self.shared.load == nil }
            let failures = shared.queue.failedKeys.count
            guard failures < Self.maximumConsecutiveLoadFailures else {
                guard still() else { return false }
                let last = shared.context.lastError
                let error = VoiceNoteError(last?.status ?? .network,
                    "the queue stopped: \(failures) notes in a row failed to load (the last: \(last?.message ?? "unknown"))")
                shared.context.lastError = error
                events.emit(.failed(error))
                whenEnded()
                return false
            }
            let clock = configuration.clock
            let deadline = clock.now + Self.firstFailureBackoff * Double(1 << max(0, failures - 1))
            while still() {
                if !clock.wait(on: monitor, until: deadline) { break }
            }
            return still()
        }
    }

    /// `next()` on the decoder thread: the answer plays, or the player stops.
    func skip(generation: UInt64, serial: UInt64) {
        advanceQueue(.skipped, generation: generation, serial: serial) {
            switch shared.context.state {
            case .notLoaded, .stopped: shared.wantsPlaying = false
            case .loading: unload()  // the load gave way to the skip
            case .playing, .paused: stopShared()
            }
        }
    }
}
