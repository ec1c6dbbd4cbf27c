import VoiceNoteCore

/// What lets one note's upload go on across attempts and processes (the outbox gives it): where an earlier attempt
/// reserved the note's object on the server, a key naming the note, and a hook that makes a new reservation durable
/// before any byte of the note is sent.
public struct UploadResumption: Sendable {
    /// Where an earlier attempt reserved the note: a tus upload's URL (resumed from the offset its `HEAD` gives) or a
    /// Matrix content URI (the bytes `PUT` there again; a homeserver that has them answers 409, which is success).
    /// Nil: none yet. A reservation the server no longer knows (404/410: expired) is made again.
    public var reserved: String?
    /// Sent as `Idempotency-Key` with a multipart or raw upload, so a server that honours the header stores the note
    /// once however often it is sent. Nil: no header.
    public var key: String?
    /// Called on the upload thread with a new reservation (a tus URL, a content URI) before the note's bytes go; an
    /// error it throws fails the upload with it.
    public var onReserved: (@Sendable (String) throws(VoiceNoteError) -> Void)?

    /// A resumption from `reserved`, naming the note `key`, telling `onReserved` of a new reservation.
    public init(reserved: String? = nil, key: String? = nil,
                onReserved: (@Sendable (String) throws(VoiceNoteError) -> Void)? = nil) {
        self.reserved = reserved
        self.key = key
        self.onReserved = onReserved
    }
}
