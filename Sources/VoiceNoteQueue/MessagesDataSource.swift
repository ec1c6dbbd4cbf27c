import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNotePlayer
import VoiceNoteWaveform

/// The built-in data source of a queue player (Stream's `AudioQueuePlayerNextItemProvider` behind
/// `AudioQueuePlayerDatasource`): after an item whose location is a message's `voiceRecording` `asset_url`, the one
/// `scope` names. A URL that follows on the current URL's origin (scheme, host and port) is fetched with the current
/// item's HTTP options; any other without, so no header goes to another host. A path or `file://` URL follows only
/// a local item (a path, a `file://` URL or a byte source), never a URL.
public struct MessagesDataSource: Sendable {
    /// The channel's messages, oldest first.
    public let messages: ChannelMessages
    /// The current user: nothing follows a voice message this user sent.
    public let currentUserID: String?
    /// Which voice messages follow.
    public let scope: NextItemScope

    /// A data source over `messages`.
    public init(messages: ChannelMessages, currentUserID: String?, scope: NextItemScope) {
        self.messages = messages
        self.currentUserID = currentUserID
        self.scope = scope
    }

    /// The location after `current`, or nil.
    public func next(after current: QueueItem) -> PlayerLocation? {
        guard let next = messages.nextItem(after: current.location.displayName, currentUserID: currentUserID, scope: scope) else {
            return nil
        }
        // Parsed once: a URL the player does not fetch (`mxc://`) is answered as refused, and its load fails the item.
        let answer = PlayerLocation(parsing: next)
        guard let url = answer.remote?.url else {
            // A path or file:// URL only follows a local item: a remote sender's message cannot make the client open
            // local files after a note from the network.
            return current.location.remote == nil ? answer : nil
        }
        if let (currentURL, options) = current.location.remote, let origin = Self.origin(of: currentURL), origin == Self.origin(of: url) {
            return .location(.remote(url: url), options: options)
        }
        return answer
    }

    /// The loudness the messages carry for `location`, one of `next`'s answers: looked up by the text the message
    /// names (its `asset_url`).
    public func loudness(of location: PlayerLocation) -> Loudness? {
        messages.loudness(of: location.displayName)
    }

    /// `scheme://host[:port]` of an http(s) URL, lowercased; nil for anything else.
    static func origin(of url: String) -> String? {
        guard let range = url.firstRange(of: "://") else { return nil }
        let rest = url[range.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return (url[..<range.upperBound] + host).lowercased()
    }
}

extension Player {
    /// Makes this player a queue player over `messages` (see `MessagesDataSource`); calling it again replaces the
    /// messages, also while an item plays. A note whose attachment carries its loudness (`voicenote_loudness`) is
    /// levelled by it, without a pre-pass.
    public func useMessages(_ messages: ChannelMessages, currentUserID: String?, scope: NextItemScope) {
        let source = MessagesDataSource(messages: messages, currentUserID: currentUserID, scope: scope)
        setDataSource({ source.next(after: $0) }, loudness: { source.loudness(of: $0) })
    }
}
