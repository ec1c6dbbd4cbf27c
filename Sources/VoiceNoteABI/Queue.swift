import CVoiceNote
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNotePlayer
import VoiceNoteQueue

/// The object behind the `vn_queue_answer *` a data source hook fills in: a handle only for the call.
private final class QueueAnswer: @unchecked Sendable {
    /// Guarded: the hook may hand `answer` to another thread while it waits (allowed, if odd).
    let location = Locked<PlayerLocation?>(nil)
}

/// A C data source: the hook and its user data (`release` runs after the last call).
extension CHook where Function == vn_queue_next_fn {
    /// Asks the hook about `current`; what it set on the answer during the call.
    func answer(after current: QueueItem) -> PlayerLocation? {
        let answer = QueueAnswer()
        let handle = Handles.make(answer)
        defer { _ = Handles.remove(handle, as: QueueAnswer.self) }
        current.location.displayName.withCString { location in
            current.key.withCString { key in function(userData, location, key, handle) }
        }
        return answer.location.withLock { $0 }
    }
}

/// Sets what `answer` (a handle live during its hook call) names.
private func setAnswer(_ answer: OpaquePointer?, _ location: () throws(VoiceNoteError) -> PlayerLocation) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let target = try Handles.get(answer, as: QueueAnswer.self, "answer")
        let value = try location()
        target.location.withLock { $0 = value }
    }
}

@c @implementation public func vn_queue_answer_set_location(_ answer: OpaquePointer?, _ location: UnsafePointer<CChar>?) -> Int32 {
    setAnswer(answer) { () throws(VoiceNoteError) in
        PlayerLocation(parsing: try nonEmptyString(location, "location"))  // refused text fails its item's load
    }
}

@c @implementation public func vn_queue_answer_set_url(
    _ answer: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ key: UnsafePointer<CChar>?
) -> Int32 {
    setAnswer(answer) { () throws(VoiceNoteError) in
        let remote = try Location(url: try utf8String(url, "url"))
        let settings = try HTTPOptionsHandle.value(of: options, or: HTTPOptions())
        let identity = try key.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "key") }
        return .location(remote, options: settings, key: identity)
    }
}

@c @implementation public func vn_player_set_data_source(
    _ player: OpaquePointer?, _ next: vn_queue_next_fn?, _ userData: UnsafeMutableRawPointer?, _ release: vn_release_fn?
) -> Int32 {
    // Made first, so that `release` runs whatever happens below.
    let source = next.map { CHook($0, userData: userData, release: release) }
    return abiCall { () throws(VoiceNoteError) in
        let player = try Handles.get(player, as: PlayerHandle.self, "player").player
        guard let source else { return player.setDataSource(nil) }
        player.setDataSource { current in source.answer(after: current) }
    }
}

@c @implementation public func vn_player_use_messages(
    _ player: OpaquePointer?, _ messagesJSON: UnsafePointer<CChar>?, _ length: Int, _ currentUserID: UnsafePointer<CChar>?,
    _ scope: Int32
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let player = try Handles.get(player, as: PlayerHandle.self, "player").player
        let scope = try nextScope(scope)
        let user = try currentUserID.map { (text) throws(VoiceNoteError) in try utf8String(text, "current_user_id") }
        player.useMessages(try channelMessages(messagesJSON, length), currentUserID: user, scope: scope)
    }
}

@c @implementation public func vn_player_next(_ player: OpaquePointer?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try Handles.get(player, as: PlayerHandle.self, "player").player.next() }
}

@c @implementation public func vn_player_set_skip_listened(_ player: OpaquePointer?, _ skip: Int32) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try Handles.get(player, as: PlayerHandle.self, "player").player.setSkipsListened(skip != 0) }
}
