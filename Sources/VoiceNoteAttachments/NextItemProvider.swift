import VoiceNoteCore

/// Which voice message plays after the current one (Stream's `AudioQueuePlayerNextItemProvider`).
public enum NextItemScope: String, Sendable, CaseIterable {
    /// The next voice recording of the same message only.
    case sameMessage = "same-message"
    /// The same message's next one; else the first of the message right after, when the same author sent it.
    case subsequentMessagesFromUser = "subsequent-messages-from-user"
    /// The next voice recording in time from anyone but the current user, up to a message with none (as Element
    /// and Signal play a run of voice messages).
    case consecutive

    /// A scope by name. - Throws: `.invalidArgument` for an unknown name.
    public init(name: String) throws(VoiceNoteError) {
        guard let scope = NextItemScope(rawValue: name) else {
            let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw VoiceNoteError(.invalidArgument, "unknown scope \"\(name.prefix(64))\" (one of \(names))")
        }
        self = scope
    }
}

extension ChannelMessages {
    /// The location to play after `current`, or nil. The current one is found in the newest message having it as
    /// a voice recording; nothing follows a recording the current user sent, or one not found.
    public func nextItem(after current: String, currentUserID: String?, scope: NextItemScope) -> String? {
        guard !current.isEmpty,
              let index = messages.lastIndex(where: { $0.voiceRecordings.contains(current) }) else { return nil }
        let message = messages[index]
        if let author = message.authorID, author == currentUserID { return nil }
        // Its last place in the message: a message naming one URL twice cannot make a queue go round for ever.
        if let position = message.voiceRecordings.lastIndex(of: current), position + 1 < message.voiceRecordings.count {
            return message.voiceRecordings[position + 1]
        }
        let later = messages[(index + 1)...]
        switch scope {
        case .sameMessage:
            return nil
        case .subsequentMessagesFromUser:
            guard let next = later.first, let author = message.authorID, next.authorID == author else { return nil }
            return next.voiceRecordings.first
        case .consecutive:
            for next in later {
                guard let first = next.voiceRecordings.first else { return nil }
                if let author = next.authorID, author == currentUserID { continue }
                return first
            }
            return nil
        }
    }
}
