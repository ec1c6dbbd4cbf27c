/// One library thread that runs jobs one at a time, in the order they were queued: what lets an object answer its
/// caller at once and do the slow part of a call (a device opened, a file rewritten) behind it, in order. Started by
/// the first job; `finish` lets it run what is queued and end.
public final class SerialWorker: @unchecked Sendable {
    private let name: String
    private let monitor = Monitor()
    // Guarded by `monitor`:
    private var jobs: [@Sendable () -> Void] = []
    private var finishing = false
    private var thread: LibraryThread?

    /// A worker whose thread will be named `name` (at most 15 bytes are kept).
    public init(name: String) {
        self.name = name
    }

    /// Queues `job`; never waits for a job. After `finish`, or when no thread can be started, `job` runs on the
    /// calling thread instead (still after every job queued before it has run, as `finish` waits for those).
    public func enqueue(_ job: @escaping @Sendable () -> Void) {
        let queued = monitor.locked { () -> Bool in
            guard !finishing else { return false }
            if thread == nil {
                thread = try? LibraryThread(name: name) { [self] in run() }
                guard thread != nil else { return false }
            }
            jobs.append(job)
            monitor.broadcast()
            return true
        }
        if !queued { job() }
    }

    /// Whether the calling thread is this worker's.
    public var isCurrent: Bool { monitor.locked { thread?.isCurrent ?? false } }

    /// Lets the thread run every queued job and end, and waits for that (`waiting`, unless called on the worker
    /// itself, from a job) or lets it end on its own. Idempotent.
    public func finish(waiting: Bool = true) {
        let ending = monitor.locked { () -> LibraryThread? in
            finishing = true
            monitor.broadcast()
            defer { thread = nil }
            return thread
        }
        if waiting {
            ending?.joinOrDetach()
        } else {
            ending?.detach()
        }
    }

    private func run() {
        while true {
            let batch = monitor.locked { () -> [@Sendable () -> Void]? in
                while jobs.isEmpty && !finishing { monitor.wait() }
                if jobs.isEmpty { return nil }
                defer { jobs = [] }
                return jobs
            }
            guard let batch else { return }
            for job in batch { job() }
        }
    }
}
