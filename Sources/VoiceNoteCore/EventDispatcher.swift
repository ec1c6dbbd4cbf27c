/// One callback waiting to run: which subscription, and the call with its event already bound.
public struct PendingEvent: Sendable {
    /// The subscription whose callback runs.
    public let subscription: Subscription
    /// Calls the subscriber with its event.
    public let invoke: @Sendable () -> Void

    /// Binds a subscription and its call.
    public init(subscription: Subscription, invoke: @escaping @Sendable () -> Void) {
        self.subscription = subscription
        self.invoke = invoke
    }

    /// Runs the callback through the registry, which keeps the subscription contract; false when it had ended.
    @discardableResult
    func run() -> Bool {
        SubscriptionRegistry.shared.deliver(subscription, invoke)
    }
}

/// Where an object's events are delivered: the library's event thread or a host-dispatched `EventLoop`.
/// Both run callbacks in the order they were enqueued and never under a lock.
public protocol EventDispatcher: AnyObject, Sendable {
    /// Queues callbacks in order; never runs them on the calling thread and never blocks on a callback.
    func enqueue(_ events: [PendingEvent])
}
