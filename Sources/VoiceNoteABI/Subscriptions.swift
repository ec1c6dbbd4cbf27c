import CVoiceNote
import VoiceNoteCore

@c @implementation public func vn_unsubscribe(_ id: vn_subscription_id) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try SubscriptionRegistry.shared.end(id: id)
    }
}

/// A C callback, its user data and its release function, as one sendable value. `release` runs through the
/// subscription registry exactly once.
struct CSubscriber<Function>: @unchecked Sendable {
    let function: Function
    let userData: UnsafeMutableRawPointer?
    let release: vn_release_fn?

    /// The release closure for `EventChannel.subscribe`.
    var releaseClosure: (@Sendable () -> Void)? {
        guard let release else { return nil }
        let userData = UnsafeSendablePointer(userData)
        return { release(userData.pointer) }
    }
}

/// A C hook (a function asked for an answer: a post-processor, a queue's data source) with its user data; `release`
/// runs with the user data when the last reference goes, so after the last call whichever thread ends it.
final class CHook<Function>: @unchecked Sendable {
    let function: Function
    let userData: UnsafeMutableRawPointer?
    private let release: vn_release_fn?

    init(_ function: Function, userData: UnsafeMutableRawPointer?, release: vn_release_fn?) {
        self.function = function
        self.userData = userData
        self.release = release
    }

    deinit { release?(userData) }
}

/// A raw pointer carried across threads; the C caller vouches for it.
struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    init(_ pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }
}

/// How an object takes a subscriber: its channel's `subscribe`, or its own (a player's or a flow's, which queue
/// the current state for the new subscriber first). Arguments: the handler, the release, the id's receiver.
typealias Subscribe<Event> = (@escaping @Sendable (Event) -> Void, (@Sendable () -> Void)?, (UInt64) -> Void)
    throws(VoiceNoteError) -> UInt64

/// Subscribes a C callback to an object: checks the callback, writes `*out_id` before the first callback can run,
/// and hands each event with the subscriber to `deliver`, which builds the C event and calls it.
func subscribeC<Event: Sendable, Function>(
    _ subscribe: Subscribe<Event>, _ callback: Function?, _ userData: UnsafeMutableRawPointer?, _ release: vn_release_fn?,
    _ outId: UnsafeMutablePointer<vn_subscription_id>?,
    deliver: @escaping @Sendable (Event, CSubscriber<Function>) -> Void
) throws(VoiceNoteError) {
    let subscriber = CSubscriber(function: try required(callback, "callback"), userData: userData, release: release)
    _ = try subscribe({ event in deliver(event, subscriber) }, subscriber.releaseClosure, { store($0, into: outId) })
}

/// `subscribeC` through a channel's `subscribe`.
func subscribeC<Event: Sendable, Function>(
    _ channel: EventChannel<Event>, _ callback: Function?, _ userData: UnsafeMutableRawPointer?, _ release: vn_release_fn?,
    _ outId: UnsafeMutablePointer<vn_subscription_id>?,
    deliver: @escaping @Sendable (Event, CSubscriber<Function>) -> Void
) throws(VoiceNoteError) {
    try subscribeC({ (handler, release, registered) throws(VoiceNoteError) in
        try channel.subscribe(handler, release: release, registered: registered)
    }, callback, userData, release, outId, deliver: deliver)
}

/// Writes a subscription id where the caller asked for it.
func store(_ id: UInt64, into out: UnsafeMutablePointer<vn_subscription_id>?) {
    out?.pointee = id
}
