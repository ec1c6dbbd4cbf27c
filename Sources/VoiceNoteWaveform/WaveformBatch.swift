import VoiceNoteCore
import VoiceNoteSources

/// Waveforms of many notes on one pool of worker threads, handed back in the order the notes were added: what a
/// backend needs to fill in the waveforms of thousands of voice messages in one process, where a process per file
/// costs more in start-up than the work.
///
/// Notes are added as text (a path, a `file://` or an http(s) URL), parsed (`Location`) on a worker, where `open`,
/// given at creation, turns the location into a byte source. A failing note (text that is no location included) gives its error as its result and the batch goes on. Workers start a note only while it is
/// fewer than `window` places past the next result to hand back, so at most `window` results are held however many
/// notes are added and however slowly results are taken: memory is bounded by the window, not the batch.
///
/// A long local file started while other workers have nothing to start is split into ranges decoded on as many
/// threads as there are idle workers (`WaveformAnalysis.analyse(_:samples:ranges:reopening:)`), so a batch of one
/// long note uses the machine too; while notes wait, each worker takes its own.
///
/// Any thread may add and take; results come out in input order, one per note. Closing the batch, or letting the
/// last reference to it go, stops the workers.
public final class WaveformBatch: Sendable {
    /// The result for one note.
    public struct Item: Sendable {
        /// Its place in the input, from 0.
        public let index: Int
        /// The location as it was added.
        public let location: String
        /// Its waveform and length, or why there is none.
        public let outcome: Swift.Result<WaveformAnalysis.Result, VoiceNoteError>
    }

    /// What `next` found.
    public enum Next: Sendable {
        /// The next result in input order.
        case item(Item)
        /// The timeout passed before the next result was ready.
        case timedOut
        /// Every result was taken and the input has ended.
        case end
    }

    /// Values per waveform.
    public var samples: Int { pool.samples }
    /// Worker threads.
    public var jobs: Int { pool.jobs }
    /// How far past the next result to hand back workers may run.
    public var window: Int { pool.window }

    /// The state and the workers; the worker threads hold it, not the batch, so the batch's deinit can close it.
    private let pool: WaveformPool

    /// Starts `jobs` workers.
    /// - Parameters:
    ///   - samples: values per waveform, 1…`Waveform.maximumSampleCount`.
    ///   - jobs: worker threads, 1…256; nil for the CPUs this process may use (`Processors.available`).
    ///   - window: how far ahead of the results taken workers may run, `jobs`…65536; nil for twice `jobs`.
    ///   - clock: what `next`'s timeouts are measured on.
    ///   - open: turns a parsed location into the byte source to read (on a worker thread).
    /// - Throws: `.invalidArgument` for a value out of range; `.noMemory` when a thread cannot start.
    public init(samples: Int = Waveform.defaultSampleCount, jobs: Int? = nil, window: Int? = nil,
                clock: any VoiceNoteClock = MonotonicClock.shared,
                open: @escaping @Sendable (Location) throws(VoiceNoteError) -> any ByteSource) throws(VoiceNoteError) {
        pool = try WaveformPool(samples: samples, jobs: jobs ?? Processors.available, window: window, clock: clock,
                                open: open)
    }

    deinit { pool.close() }

    /// Whether each note's loudness is measured with its waveform (the default); off, a note costs only its
    /// waveform. A change applies to the notes started after it.
    public var measuresLoudness: Bool {
        get { pool.measuresLoudness }
        set { pool.measuresLoudness = newValue }
    }

    /// Adds a note. `.misuse` after `endInput` or `close`.
    public func add(_ location: String) throws(VoiceNoteError) { try pool.add(location) }

    /// Says no note will be added: once every result is taken, `next` answers `.end`. Idempotent.
    public func endInput() { pool.endInput() }

    /// Notes added so far.
    public var count: Int { pool.count }

    /// The next result in input order, waiting at most `timeout` seconds of the batch's clock for it (nil: as long as
    /// it takes).
    /// `.misuse` after `close`.
    public func next(timeout: Double? = nil) throws(VoiceNoteError) -> Next { try pool.next(timeout: timeout) }

    /// Stops the workers (a note being read from the network is cancelled; one being decoded stops at its next
    /// packet) and waits for them. Later calls but `close` are `.misuse`. Idempotent.
    public func close() { pool.close() }
}

/// `WaveformBatch`'s state, its worker threads and their loop.
private final class WaveformPool: @unchecked Sendable {
    typealias Item = WaveformBatch.Item
    typealias Next = WaveformBatch.Next

    let samples: Int
    let jobs: Int
    let window: Int

    private let open: @Sendable (Location) throws(VoiceNoteError) -> any ByteSource
    private let monitor = Monitor()
    private let clock: any VoiceNoteClock
    /// Locations added and not yet started: `queued[queuedStart...]`.
    private var queued: [String] = []
    private var queuedStart = 0
    private var added = 0
    private var started = 0
    private var finished: [Int: Item] = [:]
    private var nextIndex = 0
    private var inputEnded = false
    private var closed = false
    /// Workers analysing a note now.
    private var busy = 0
    /// The source each worker reads now, so that `close` can cancel a read waiting on the network.
    private var reading: [Int: any ByteSource] = [:]
    private var workers: [LibraryThread] = []
    /// Set by `close`: the notes being decoded stop at their next packet.
    private let stopping = CancellationFlag()
    private var loudnessOn = true

    /// See `WaveformBatch.measuresLoudness`.
    var measuresLoudness: Bool {
        get { monitor.locked { loudnessOn } }
        set { monitor.locked { loudnessOn = newValue } }
    }

    init(samples: Int, jobs: Int, window: Int?, clock: any VoiceNoteClock,
         open: @escaping @Sendable (Location) throws(VoiceNoteError) -> any ByteSource) throws(VoiceNoteError) {
        try VoiceNoteError.rethrowing { try Waveform.checkSampleCount(samples) }
        guard (1...256).contains(jobs) else {
            throw VoiceNoteError(.invalidArgument, "jobs must be 1…256, not \(jobs)")
        }
        let window = window ?? 2 * jobs
        guard (jobs...65_536).contains(window) else {
            throw VoiceNoteError(.invalidArgument, "the window must be \(jobs)…65536 (at least the jobs), not \(window)")
        }
        self.samples = samples
        self.jobs = jobs
        self.window = window
        self.open = open
        self.clock = clock
        do throws(VoiceNoteError) {
            for worker in 0..<jobs {
                workers.append(try LibraryThread(name: "vn-waveform") { self.work(as: worker) })
            }
        } catch {
            close()
            throw error
        }
    }

    func add(_ location: String) throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard !inputEnded, !closed else {
                throw VoiceNoteError(.misuse, closed ? "the batch is closed" : "the batch's input has ended")
            }
            queued.append(location)
            added += 1
            monitor.broadcast()
        }
    }

    func endInput() {
        monitor.locked {
            inputEnded = true
            monitor.broadcast()
        }
    }

    var count: Int { monitor.locked { added } }

    func next(timeout: Double? = nil) throws(VoiceNoteError) -> Next {
        let deadline = timeout.map { clock.now + max(0, min($0, 1e9)) } ?? .infinity
        return try monitor.locked { () throws(VoiceNoteError) -> Next in
            while true {
                guard !closed else { throw VoiceNoteError(.misuse, "the batch is closed") }
                if let item = finished.removeValue(forKey: nextIndex) {
                    nextIndex += 1
                    monitor.broadcast()  // the window moved: a worker may start the next note
                    return .item(item)
                }
                if inputEnded && nextIndex == added { return .end }
                if !clock.wait(on: monitor, until: deadline) { return .timedOut }
            }
        }
    }

    /// Stops the workers: see `WaveformBatch.close`. Called by a worker (the pool's last holder after a failed
    /// start), it lets the others end on their own.
    func close() {
        let running = monitor.locked { () -> [any ByteSource] in
            closed = true
            monitor.broadcast()
            return Array(reading.values)
        }
        stopping.cancel()
        for source in running { source.cancel() }
        let threads = monitor.locked { () -> [LibraryThread] in
            defer { workers.removeAll() }
            return workers
        }
        for thread in threads { thread.joinOrDetach() }
    }

    /// A worker: takes the next note inside the window, analyses it, files its result; ends when closed or when
    /// the input ended and every note was started.
    private func work(as worker: Int) {
        while let (index, location, ranges) = take() {
            let outcome: Swift.Result<WaveformAnalysis.Result, VoiceNoteError>
            do throws(VoiceNoteError) {
                let parsed = try Location(location)
                let source = try open(parsed)
                let kept = monitor.locked { () -> Bool in
                    guard !closed else { return false }
                    reading[worker] = source
                    return true
                }
                guard kept else { return }
                defer { monitor.locked { _ = reading.removeValue(forKey: worker) } }
                let open = self.open
                outcome = .success(try WaveformAnalysis.analyse(
                    source, samples: samples, ranges: parsed.isFile ? ranges : 1, loudness: measuresLoudness,
                    cancellation: stopping,
                    reopening: { () throws(VoiceNoteError) in try open(parsed) }))
            } catch {
                outcome = .failure(error)
            }
            monitor.locked {
                busy -= 1
                finished[index] = Item(index: index, location: location, outcome: outcome)
                monitor.broadcast()
            }
        }
    }

    /// Under no lock: the next note to start, waiting while it is outside the window, and the threads it may use
    /// (itself and the workers idle with nothing queued); nil when there is none to come.
    private func take() -> (Int, String, Int)? {
        monitor.locked { () -> (Int, String, Int)? in
            while true {
                if closed { return nil }
                if started < added && started < nextIndex + window {
                    let location = queued[queuedStart]
                    queued[queuedStart] = ""
                    queuedStart += 1
                    if queuedStart >= 1024 && queuedStart * 2 >= queued.count {
                        queued.removeFirst(queuedStart)
                        queuedStart = 0
                    }
                    started += 1
                    busy += 1
                    let idle = started == added ? jobs - busy : 0
                    return (started - 1, location, 1 + idle)
                }
                if inputEnded && started == added { return nil }
                monitor.wait()
            }
        }
    }
}
