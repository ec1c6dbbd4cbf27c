import VoiceNoteAttachments
import VoiceNoteCore

/// One note in the outbox, as `Outbox.items()` lists it.
public struct OutboxItem: Sendable, Equatable {
    /// Where a note is on its way.
    public enum State: String, Sendable, CaseIterable {
        /// Waiting for its turn (new, or found mid-send at the start: it goes on from where the server has it).
        case queued
        /// Being sent by someone else — the flow's uploader sent the take while it was recorded — and kept here in
        /// case that fails: `release` makes it `uploaded` (that upload's payload) or `queued`; at the next start
        /// (the process ended meanwhile) it is `queued`.
        case held
        /// Being sent now.
        case sending
        /// Its last attempt failed in a way that may pass (the link, a timeout, a 5xx, 408, 429); tried again after a
        /// back-off, or at the next start.
        case waiting
        /// Refused for good (a 4xx other than 408/429, a file that is not a note, an answer without a URL): kept, with
        /// its error, until the host retries or cancels it.
        case failed
        /// Uploaded: its payload is offered to the host (the `uploaded` event, again at every start) until the host
        /// acknowledges it, which removes it.
        case uploaded
    }

    /// The item's number, unique in its outbox for its life (never reused).
    public let id: Int64
    /// The state.
    public let state: State
    /// The outbox's own copy of the note (it keeps it until the item goes).
    public let path: String
    /// How many attempts have begun.
    public let attempts: Int
    /// Where the server has the note reserved (a tus URL, a Matrix content URI), nil for none.
    public let reserved: String?
    /// The last attempt's failure, for `waiting` and `failed` (nil otherwise).
    public let lastError: VoiceNoteError?
    /// The payload the upload completes (as given to `add`), nil when it is made from the file.
    public let payload: VoiceRecordingPayload?
    /// The uploaded payload, for `uploaded`.
    public let uploaded: VoiceRecordingPayload?
    /// The key sent as `Idempotency-Key` with every attempt of this note (multipart and raw).
    public let key: String
    /// Where the note goes: it is sent only by an outbox opened for this destination.
    public let destination: Destination

    /// Where an item goes (its credentials are the outbox's, given at each start, never stored).
    public struct Destination: Sendable, Equatable {
        /// The endpoint it was added for.
        public let endpoint: String
        /// The upload mode it was added for.
        public let mode: UploadMode

        /// A destination.
        public init(endpoint: String, mode: UploadMode) {
            self.endpoint = endpoint
            self.mode = mode
        }
    }
}

/// What an outbox tells its host.
public enum OutboxEvent: Sendable, Equatable {
    /// An item was added (`add` has made it durable).
    case added(id: Int64)
    /// An attempt of item `id` is under way; `progress` from 0 to 1 as the upload's.
    case sending(id: Int64, progress: Double)
    /// An attempt failed in a way that may pass: tried again after `retryIn` seconds.
    case waiting(id: Int64, error: VoiceNoteError, retryIn: Double)
    /// Item `id` was refused for good (it stays, `failed`, until retried or cancelled).
    case failed(id: Int64, error: VoiceNoteError)
    /// Item `id` is uploaded: send the message with `payload`, then `acknowledge(id)`. Offered again at every start
    /// until acknowledged, so a host that dies between the two gets it once more (deduplicate by `id`).
    case uploaded(id: Int64, payload: VoiceRecordingPayload)
    /// Item `id` is gone (acknowledged or cancelled).
    case removed(id: Int64)
}
