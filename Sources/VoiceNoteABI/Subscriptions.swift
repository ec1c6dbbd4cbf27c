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

/// Subscribes a C callback to an object's channel: checks the callback, writes `*out_id` before the first callback
/// can run, and hands each event with the subscriber to `deliver`, which builds the C event and calls it.
func subscribeC<Event: Sendable, Function>(
    _ channel: EventChannel<Event>, _ callback: Function?, _ userData: UnsafeMutableRawPointer?, _ release: vn_release_fn?,
    _ outId: UnsafeMutablePointer<vn_subscription_id>?,
    deliver: @escaping @Sendable (Event, CSubscriber<Function>) -> Void
) throws(VoiceNoteError) {
    let subscriber = CSubscriber(function: try required(callback, "callback"), userData: userData, release: release)
    _ = try channel.subscribe({ event in deliver(event, subscriber) }, release: subscriber.releaseClosure,
                              registered: { store($0, into: outId) })
}

/// Writes a subscription id where the caller asked for it.
func store(_ id: UInt64, into out: UnsafeMutablePointer<vn_subscription_id>?) {
    out?.pointee = id
}
