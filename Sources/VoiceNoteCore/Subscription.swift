#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One subscriber of one object, shared by the object's `EventChannel` and the process-wide
/// `SubscriptionRegistry`. Its state changes only under the registry's monitor.
public final class Subscription: @unchecked Sendable {
    /// Non-zero, never reused in this process.
    public let id: UInt64
    fileprivate let release: (@Sendable () -> Void)?
    /// Readable without the monitor, so channels can prune ended subscriptions cheaply.
    fileprivate let ended = Atomic<Bool>(false)
    // Guarded by SubscriptionRegistry.monitor:
    fileprivate var running = false
    fileprivate var runningThread = pthread_t()
    fileprivate var releaseWhenCallbackReturns = false

    fileprivate init(id: UInt64, release: (@Sendable () -> Void)?) {
        self.id = id
        self.release = release
    }

    /// Whether the subscription has ended (by unsubscribe or by its object's destroy).
    public var isEnded: Bool { ended.load(ordering: .acquiring) }
}

/// Every live subscription of the process, so `vn_unsubscribe(id)` works for any object, and the one place that
/// keeps the contract: after `end` returns no callback runs; `release` runs exactly once, after the last callback;
/// ending from inside the subscription's own callback does not wait.
public final class SubscriptionRegistry: Sendable {
    /// The registry of this process.
    public static let shared = SubscriptionRegistry()

    private let monitor = Monitor()
    private nonisolated(unsafe) var live: [UInt64: Subscription] = [:]
    private nonisolated(unsafe) var lastId: UInt64 = 0
    /// How many callbacks each thread is inside (by pthread_t), to avoid waiting across threads from a callback.
    private nonisolated(unsafe) var callbackDepth: [UInt: Int] = [:]

    private init() {}

    /// The calling thread as a dictionary key.
    private static var currentThread: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

    /// Registers a new subscription; `release` will run exactly once when it ends.
    public func register(release: (@Sendable () -> Void)?) -> Subscription {
        monitor.locked {
            lastId += 1
            let subscription = Subscription(id: lastId, release: release)
            live[lastId] = subscription
            return subscription
        }
    }

    /// Ends the subscription with this id; `.misuse` when the id is unknown or already ended.
    public func end(id: UInt64) throws(VoiceNoteError) {
        let subscription = monitor.locked { live[id] }
        guard let subscription, end(subscription) else {
            throw VoiceNoteError(.misuse, "unknown or already ended subscription id \(id)")
        }
    }

    /// Ends `subscription`: waits for a callback running on another thread, then runs `release` on this thread.
    /// From inside its own callback — or from inside any callback, when its callback runs on another thread — it
    /// only marks it ended and `release` runs when that callback returns: a callback never waits for another
    /// thread's callback, so two callbacks ending each other's subscriptions cannot deadlock.
    /// Returns false when it had already ended.
    @discardableResult
    public func end(_ subscription: Subscription) -> Bool {
        let releaseNow: Bool? = monitor.locked {
            guard !subscription.ended.load(ordering: .relaxed) else { return nil }
            subscription.ended.store(true, ordering: .releasing)
            live[subscription.id] = nil
            if subscription.running
                && (pthread_equal(subscription.runningThread, pthread_self()) != 0 || callbackDepth[Self.currentThread, default: 0] > 0) {
                subscription.releaseWhenCallbackReturns = true
                return false
            }
            while subscription.running { monitor.wait() }
            return true
        }
        guard let releaseNow else { return false }
        if releaseNow { subscription.release?() }
        return true
    }

    /// Runs one callback of `subscription` unless it has ended, keeping the contract above; returns whether it ran.
    /// Called by dispatchers with no lock held.
    @discardableResult
    public func deliver(_ subscription: Subscription, _ callback: () -> Void) -> Bool {
        let proceed = monitor.locked {
            guard !subscription.ended.load(ordering: .relaxed) else { return false }
            subscription.running = true
            subscription.runningThread = pthread_self()
            callbackDepth[Self.currentThread, default: 0] += 1
            return true
        }
        guard proceed else { return false }
        callback()
        let releaseNow = monitor.locked {
            subscription.running = false
            let depth = callbackDepth[Self.currentThread, default: 1] - 1
            callbackDepth[Self.currentThread] = depth > 0 ? depth : nil
            let release = subscription.releaseWhenCallbackReturns
            subscription.releaseWhenCallbackReturns = false
            monitor.broadcast()
            return release
        }
        if releaseNow { subscription.release?() }
        return true
    }
}
