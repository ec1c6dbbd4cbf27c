import VoiceNoteCore

/// Where what an analysis found in a source's bytes is kept, so the next analysis of the same media reads it instead
/// of decoding (docs/player.md, "The media cache"): the media cache keeps it beside the entry of a URL's media. A
/// source has one when its bytes are, or will become, a cache entry. The text is the analysis's own record; the
/// store only keeps it.
public final class KeptAnalysis: Sendable {
    private let readText: @Sendable () -> String?
    private let writeText: @Sendable (String) -> Void

    /// A store reading with `read` (nil: nothing kept) and keeping with `write` (failures are the store's to log).
    public init(read: @escaping @Sendable () -> String?, write: @escaping @Sendable (String) -> Void) {
        readText = read
        writeText = write
    }

    /// What is kept, or nil.
    public func read() -> String? { readText() }

    /// Keeps `text` (replacing what was kept).
    public func write(_ text: String) { writeText(text) }
}
