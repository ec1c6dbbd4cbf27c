/// The subscribers of one object and the dispatcher that delivers to them; every object with events has one.
/// Events reach each subscriber in the order `emit` was called. Frequent progress events may be emitted
/// coalescing: a subscriber slower than the emitter then gets the latest one instead of a backlog.
public final class EventChannel<Event: Sendable>: Sendable {
    /// A queued coalescing event: later steps replace its event until it is delivered or an ordinary event is
    /// queued behind it (which seals it: a step never overtakes an event emitted before it).
    private final class Slot: Sendable {
        let event: Locked<Event?>
        init(_ event: Event) { self.event = Locked(event) }
    }
    private struct Subscriber: Sendable {
        let subscription: Subscription
        let handler: @Sendable (Event) -> Void
        /// This subscriber's queued coalescing slot that later steps may still replace, if any.
        let open = Locked<Slot?>(nil)
    }
    private struct State {
        var subscribers: [Subscriber] = []
        var closed = false
    }

    private let dispatcher: any EventDispatcher
    private let state = Locked(State())

    /// Makes a channel that delivers through `dispatcher`.
    public init(dispatcher: any EventDispatcher) {
        self.dispatcher = dispatcher
    }

    /// Adds a subscriber; `release` runs exactly once after its last callback. Throws `.misuse` after `close`
    /// (then `release` is not called). `registered` receives the id before any event can reach the subscriber, so
    /// a C caller's `*out_id` is written before its first callback runs. `initial`, when given, is queued for this
    /// subscriber alone before any later event (a player's current context).
    public func subscribe(
        _ handler: @escaping @Sendable (Event) -> Void, release: (@Sendable () -> Void)?,
        registered: (UInt64) -> Void = { _ in }, initial: Event? = nil
    ) throws(VoiceNoteError) -> UInt64 {
        try state.withLock { (state) throws(VoiceNoteError) -> UInt64 in
            guard !state.closed else { throw VoiceNoteError(.misuse, "the object was destroyed") }
            let subscription = SubscriptionRegistry.shared.register(release: release)
            registered(subscription.id)
            state.subscribers.removeAll { $0.subscription.isEnded }
            state.subscribers.append(Subscriber(subscription: subscription, handler: handler))
            if let initial {
                dispatcher.enqueue([PendingEvent(subscription: subscription) { handler(initial) }])
            }
            return subscription.id
        }
    }

    /// Queues `event` for every live subscriber. Never blocks on a callback; dropped after `close`.
    public func emit(_ event: Event) {
        state.withLock { state in
            guard !state.closed else { return }
            state.subscribers.removeAll { $0.subscription.isEnded }
            let pending = state.subscribers.map { subscriber in
                subscriber.open.withLock { $0 = nil }  // later steps queue behind this event
                return PendingEvent(subscription: subscriber.subscription) { subscriber.handler(event) }
            }
            dispatcher.enqueue(pending)
        }
    }

    /// Queues `event` like `emit`, except that for a subscriber whose previous coalescing event is still queued
    /// with nothing queued after it, `event` replaces it in place (latest wins) instead of queueing another. Events
    /// still arrive in the order they were emitted. Use for progress steps only.
    public func emitCoalescing(_ event: Event) {
        state.withLock { state in
            guard !state.closed else { return }
            state.subscribers.removeAll { $0.subscription.isEnded }
            var pending: [PendingEvent] = []
            for subscriber in state.subscribers {
                let slot = subscriber.open.withLock { open -> Slot? in
                    if let queued = open {
                        queued.event.withLock { $0 = event }
                        return nil
                    }
                    open = Slot(event)
                    return open
                }
                guard let slot else { continue }
                pending.append(PendingEvent(subscription: subscriber.subscription) {
                    subscriber.open.withLock { if $0 === slot { $0 = nil } }  // later steps queue anew
                    if let latest = slot.event.withLock({ latest in defer { latest = nil }; return latest }) {
                        subscriber.handler(latest)
                    }
                })
            }
            dispatcher.enqueue(pending)
        }
    }

    /// Ends every subscription (waiting for callbacks on other threads, not for the caller's own) and drops
    /// later events. Idempotent.
    public func close() {
        let subscribers = state.withLock { state in
            state.closed = true
            defer { state.subscribers = [] }
            return state.subscribers
        }
        for subscriber in subscribers { SubscriptionRegistry.shared.end(subscriber.subscription) }
    }
}
