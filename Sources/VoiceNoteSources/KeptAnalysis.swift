import VoiceNoteCore

/// What is kept beside a source's media: each kind of record its own file.
public enum KeptRecord: String, Sendable, CaseIterable {
    /// The waveform analysis (values, length, loudness).
    case analysis
    /// A transcript (words with times), by the recogniser that made it.
    case transcript
}

/// Where what an analysis found in a source's bytes is kept, so the next analysis of the same media reads it instead
/// of decoding (docs/player.md, "The media cache"): the media cache keeps it beside the entry of a URL's media (and
/// a local file's transcript under the file's identity). A source has one when its bytes are, or will become, a
/// cache entry. The text is the analysis's own record; the store only keeps it.
public final class KeptAnalysis: Sendable {
    private let readText: @Sendable (KeptRecord) -> String?
    private let writeText: @Sendable (KeptRecord, String) -> Void

    /// A store reading with `read` (nil: nothing kept) and keeping with `write` (failures are the store's to log).
    public init(read: @escaping @Sendable (KeptRecord) -> String?, write: @escaping @Sendable (KeptRecord, String) -> Void) {
        readText = read
        writeText = write
    }

    /// What is kept as `record`, or nil.
    public func read(_ record: KeptRecord = .analysis) -> String? { readText(record) }

    /// Keeps `text` as `record` (replacing what was kept).
    public func write(_ text: String, as record: KeptRecord = .analysis) { writeText(record, text) }
}
