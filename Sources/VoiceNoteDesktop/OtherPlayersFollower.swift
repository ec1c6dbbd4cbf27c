import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteRecorder

/// Holds `OtherPlayers` while a recorder has a take (from its first frame until it is finished or cancelled: a
/// paused take keeps the others paused) or while a player plays, by following its events; the hold is released when
/// that ends, or when the follower is closed. The events come through the object's own delivery (the library's
/// event thread, or the host's loop for a GUI): a host that delivers late pauses the others late.
public final class OtherPlayersFollower: Sendable {
    private let others: OtherPlayers
    private let holding = Locked(false)
    private let subscription = Locked<UInt64?>(nil)

    private init(_ others: OtherPlayers) {
        self.others = others
    }

    /// Follows `recorder`'s takes.
    public static func recorder(_ recorder: Recorder, others: OtherPlayers = .shared) throws(VoiceNoteError) -> OtherPlayersFollower {
        let follower = OtherPlayersFollower(others)
        let id = try recorder.events.subscribe({ [weak follower] event in
            guard case .context(let context) = event else { return }
            follower?.set(context.state != .stopped)
        }, release: nil)
        follower.subscription.withLock { $0 = id }
        return follower
    }

    /// Follows `player`'s playing.
    public static func player(_ player: Player, others: OtherPlayers = .shared) throws(VoiceNoteError) -> OtherPlayersFollower {
        let follower = OtherPlayersFollower(others)
        let id = try player.subscribe({ [weak follower] event in
            guard case .context(let context) = event else { return }
            follower?.set(context.state == .playing)
        })
        follower.subscription.withLock { $0 = id }
        return follower
    }

    /// Stops following; a hold still held is released (the others resume). Idempotent.
    public func close() {
        if let id = subscription.withLock({ id in defer { id = nil }; return id }) {
            try? SubscriptionRegistry.shared.end(id: id)
        }
        set(false)
    }

    private func set(_ active: Bool) {
        let changed = holding.withLock { holding -> Bool in
            defer { holding = active }
            return holding != active
        }
        guard changed else { return }
        if active { others.hold() } else { others.release() }
    }
}
