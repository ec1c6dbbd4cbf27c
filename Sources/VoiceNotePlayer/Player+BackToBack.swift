import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteSources

/// A queue plays back to back (docs/queue.md): when the current item's audio is decoded to its end, the decoder
/// thread asks the data source, opens the answer and decodes it on into the same ring, so the device never stops
/// and no silence comes between the two. The listener still hears the end of the current item for as long as the
/// ring and the device hold it: the player moves to the next item (`finished`, `itemChanged`, its context) when its
/// first frame is heard. A pause, seek, stop or rate change before then drops the next item and the current one
/// goes on as before. 5 s before the end the data source is asked ahead, and a remote answer is fetched meanwhile
/// (into the media cache as well); a remote answer is joined back to back once all of it has arrived.
extension Player {
    /// The item the decoder thread prepares to follow the current one, as control calls see it: changed only
    /// here; others may wake its read (`cancel`) or drop it with a load (`drop`).
    struct FollowingState {
        /// Its source (woken like the current item's).
        fileprivate(set) var source: SourceReference?
        /// The output frame where it begins, while the current item is still heard: what is heard is mapped no
        /// further than the current item's end until the decoder thread has moved to the next.
        fileprivate(set) var boundary: Int64?

        /// Wakes a blocked read of the following item (a restart or close drops it).
        func cancel() { source?.source.cancel() }

        /// A load: the following item is woken and forgotten.
        mutating func drop() {
            cancel()
            source = nil
            boundary = nil
        }
    }

    /// The next item, decoding behind the current one's last frames.
    struct FollowingItem {
        /// The item still heard until `boundary`.
        let previous: PlayerItem
        /// The next item's location as the data source gave it.
        let location: PlayerLocation
        /// The output frame (on the device's scale) that plays the next item's first frame.
        let boundary: Int64
        /// The next item's first source frame (its resume position, or 0).
        let startFrame: Int64
    }

    /// A remote next item opened ahead.
    struct PrefetchedSource {
        let key: LocationKey
        let source: any ByteSource
    }

    /// The source fetched ahead for `key`, taken (nil when none was).
    func takePrefetched(_ key: LocationKey, _ work: Work) -> (any ByteSource)? {
        guard let prefetched = work.prefetched, prefetched.key == key else { return nil }
        work.prefetched = nil
        return prefetched.source
    }

    /// The item the listener hears: the current one until the following one's first frame is heard.
    func heardItem(_ work: Work) -> PlayerItem? {
        work.following?.previous ?? work.item
    }

    /// Goes back to the item heard: the following one is dropped (a pause, seek, stop, rate change or skip came
    /// before its first frame was heard; the data source is asked again at the end).
    func dropFollowing(_ work: Work) {
        guard let following = work.following else { return }
        work.following = nil
        work.item = following.previous
        monitor.locked {
            shared.following.source = nil
            shared.following.boundary = nil
        }
    }

    /// 5 s before the end of `item`'s audio, asks the data source ahead; a remote answer starts downloading (into
    /// the media cache too), for the load that names it.
    func askAheadIfDue(_ item: PlayerItem, _ work: Work) {
        guard !work.askedAhead, work.following == nil else { return }
        let duration = item.info.duration
        let decoded = Double(item.lastSourceFrame ?? 0) / Double(item.sampleRate)
        guard duration > 0, duration - decoded <= Self.askAheadSeconds else { return }
        work.askedAhead = true
        guard let current = monitor.locked({ shared.queue.dataSource == nil ? nil : currentQueueItem() }),
              let answer = askDataSource(about: current), answer.remote != nil,
              let key = try? answer.key(), work.prefetched?.key != key,
              let source = try? answer.open(key: key, cache: configuration.mediaCache) else { return }
        work.prefetched = PrefetchedSource(key: key, source: source)
    }

    /// `item`'s audio is decoded to its end: a queue opens the data source's answer now and decodes it on behind
    /// (when it has the same rate and channels; otherwise, or when it cannot be opened, the item plays out and the
    /// end asks again).
    func followBackToBack(_ item: PlayerItem, _ work: Work) {
        guard work.following == nil else { return }  // one item ahead at most
        let state = monitor.locked { () -> (current: QueueItem, generation: UInt64, serial: UInt64, settings: PlayerContext)? in
            guard shared.queue.dataSource != nil, shared.wantsPlaying, !shared.closed, shared.generation == item.generation,
                  shared.restart.serial == work.serial, let current = currentQueueItem() else { return nil }
            return (current, shared.generation, shared.restart.serial, shared.context)
        }
        guard let state, let answer = askDataSource(about: state.current), let key = try? answer.key() else { return }
        let still = { [self] () -> Bool in
            !shared.closed && shared.generation == state.generation && shared.restart.serial == state.serial && shared.load == nil
        }
        guard let start = monitor.locked({ () -> Double? in
            guard still(), !shared.queue.failedKeys.contains(key) else { return nil }
            return shared.resumePositions.position(of: key) ?? 0
        }) else { return }
        guard let source = takePrefetched(key, work) ?? (try? answer.open(key: key, cache: configuration.mediaCache)) else { return }
        if let arriving = source as? any ArrivingSource, arriving.arrivedFraction < 1 {
            // Still downloading: opening it could stall the ring. The item plays out (`finished`, then `loading` while
            // the next one arrives) and the load after the end takes this download.
            work.prefetched = PrefetchedSource(key: key, source: source)
            return
        }
        // A close, load or seek wakes its reads from now on.
        guard monitor.locked({ () -> Bool in
            guard still() else { return false }
            shared.following.source = SourceReference(source: source)
            return true
        }) else { return }
        let request = LoadRequest(location: answer, key: key, generation: state.generation, durationHint: nil,
                                  loudness: queueLoudness(of: answer))
        let next: PlayerItem
        let startFrame: Int64
        do {
            next = try PlayerItem(request, source: source, rate: try PlaybackRate(state.settings.rate),
                                  volume: try Volume(state.settings.volume), skipsSilence: state.settings.skipsSilence,
                                  leveling: state.settings.leveling)
            guard next.sampleRate == item.sampleRate, next.channels == item.channels else {
                monitor.locked { shared.following.source = nil }
                work.prefetched = PrefetchedSource(key: key, source: source)  // the load after the end takes it
                return
            }
            startFrame = next.frame(at: start)
            try next.reposition(to: startFrame)
        } catch {
            monitor.locked { shared.following.source = nil }
            return
        }
        let boundary = monitor.locked { () -> Int64? in
            guard still() else {
                shared.following.source = nil
                return nil
            }
            shared.following.boundary = shared.output.timeline.nextOutput
            return shared.output.timeline.nextOutput
        }
        guard let boundary else { return }
        work.following = FollowingItem(previous: item, location: answer, boundary: boundary, startFrame: startFrame)
        work.item = next
        work.ended = false
        work.askedAhead = false
    }

    /// The following item's first frame is heard: the previous one `finished`, the player is at the next one
    /// (`itemChanged`, its context).
    func enterFollowingIfHeard(_ device: PlaybackDevice, _ work: Work) {
        guard let following = work.following, let item = work.item else { return }
        let played = device.position.framesPlayed
        guard played >= following.boundary else { return }
        monitor.locked {
            // After a restart the next item is dropped instead (`dropFollowing`).
            guard !shared.closed, shared.restart.serial == work.serial, !shared.restart.pending, shared.generation == item.generation else { return }
            work.following = nil
            shared.following.boundary = nil
            shared.resumePositions.forget(following.previous.key)
            noteListened(following.previous)
            events.emit(.finished(location: shared.context.location))
            let name = following.location.displayName
            shared.key = item.key
            shared.location = following.location
            shared.queue.reached(item.key)
            shared.source = shared.following.source ?? SourceReference(source: item.source)
            shared.following.source = nil
            shared.queue.forgetFailures()
            shared.output.setSourceRate(item.sampleRate)
            events.emit(.itemChanged(location: name, key: item.key.text(sourceName: name)))
            var context = shared.context
            context.location = name
            context.duration = 0
            context.durationIsEstimate = false
            showFacts(of: item, in: &context)
            // At the boundary itself the timeline may hold none of the next item's frames yet: its start, then.
            let heard = shared.output.sourceFrameIfWritten(atOutput: played) ?? Double(following.startFrame)
            context.currentTime = heard / Double(item.sampleRate)
            context.isSeeking = false
            context.lastError = nil
            publish(context)
        }
    }

    /// How long before the end of an item a queue asks its data source ahead.
    static let askAheadSeconds = 5.0
}
