/// Something that sounds or records and yields to others in its focus group: a player pauses, a recorder pauses its
/// take (nothing is lost; the user resumes it).
public protocol FocusMember: AnyObject, Sendable {
    /// Called on the thread of the member that took focus, with no library lock held: pause if sounding or
    /// recording, else do nothing. Must not call back into the group.
    func yieldFocus()
}

/// Audio focus: players and recorders that must not sound at once, as users of other clients asked ("one active
/// track at a time"; recording and playback each pause the other). One group per process by default (`shared`);
/// a host makes more when two parts of it should not disturb each other.
///
/// The rules: a member that starts playing pauses every other member of its group (other players, and a take that
/// is recording); a member that begins recording pauses every player of its group. Members are held weakly and
/// leave when they close. The player and recorder modules never import each other: both meet here.
public final class FocusGroup: Sendable {
    /// What a member is doing when it takes focus.
    public enum Activity: Sendable {
        /// Starting to play: every other member yields.
        case playback
        /// Beginning a take: every player yields; other recorders are left alone.
        case recording
    }

    /// The group every player and recorder joins unless given another.
    public static let shared = FocusGroup()

    private struct Entry {
        weak var member: (any FocusMember)?
        let kind: Activity
    }

    private let entries = Locked<[ObjectIdentifier: Entry]>([:])

    /// A new, empty group.
    public init() {}

    /// Adds `member`, whose own activity is `kind` (a player is `.playback`, a recorder `.recording`).
    public func join(_ member: any FocusMember, as kind: Activity) {
        entries.withLock { $0[ObjectIdentifier(member)] = Entry(member: member, kind: kind) }
    }

    /// Removes `member`; harmless when it is not in the group.
    public func leave(_ member: any FocusMember) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(member)) }
    }

    /// `member` starts `activity`: the members that must yield are asked to, on this thread, after the group's
    /// lock is released (a yielding member may take its own locks and join threads).
    public func take(by member: any FocusMember, for activity: Activity) {
        let me = ObjectIdentifier(member)
        let yielding = entries.withLock { entries -> [any FocusMember] in
            entries = entries.filter { $0.value.member != nil }
            return entries.compactMap { key, entry in
                guard key != me, activity == .playback || entry.kind == .playback else { return nil }
                return entry.member
            }
        }
        for other in yielding { other.yieldFocus() }
    }

    /// How many live members the group has (for tests and diagnostics).
    public var memberCount: Int {
        entries.withLock { entries in entries.values.filter { $0.member != nil }.count }
    }
}
