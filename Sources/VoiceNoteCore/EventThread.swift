/// The library-owned thread that delivers events of objects created without an event loop.
/// Started on first use; lives as long as the process and sleeps while there is nothing to deliver.
public final class EventThread: EventDispatcher {
    /// The event thread of this process.
    public static let shared = EventThread()

    private let monitor = Monitor()
    private nonisolated(unsafe) var pending: [PendingEvent] = []
    private nonisolated(unsafe) var thread: LibraryThread?

    private init() {}

    /// Queues callbacks for the event thread, starting it if needed.
    public func enqueue(_ events: [PendingEvent]) {
        guard !events.isEmpty else { return }
        monitor.locked {
            if thread == nil {
                // Failing to start a thread leaves events queued; the next enqueue tries again.
                thread = try? LibraryThread(name: "vn-events") { [self] in run() }
            }
            pending.append(contentsOf: events)
            monitor.broadcast()
        }
    }

    private func run() {
        while true {
            let batch = monitor.locked {
                while pending.isEmpty { monitor.wait() }
                defer { pending = [] }
                return pending
            }
            for event in batch { event.run() }
        }
    }
}
