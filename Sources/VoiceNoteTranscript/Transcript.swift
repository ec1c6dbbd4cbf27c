import VoiceNoteCore

/// One recognised word of a note.
public struct TranscriptWord: Sendable, Equatable {
    /// The latest time a word may have, in seconds (about 115 days): beyond any note, and far inside what every
    /// form of a transcript (milliseconds in 64-bit integers, JSON's exact integers) holds.
    public static let latestTime = 1e7

    /// The word as the recogniser spells it (UTF-8, no spaces).
    public var text: String
    /// Where it begins in the note, in seconds from the note's start.
    public var start: Double
    /// Where it ends, in seconds (≥ `start`).
    public var end: Double
    /// How sure the recogniser is, 0…1 (its posterior probability; a backend without one says 1).
    public var confidence: Double

    /// A word; `.invalidArgument` for empty text, text holding white space or a control character, times that are
    /// not finite, negative or reversed, or a confidence outside 0…1. A backend's words all pass through here.
    public init(text: String, start: Double, end: Double, confidence: Double) throws(VoiceNoteError) {
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else {
            throw VoiceNoteError(.invalidArgument, "a transcript word is one word without spaces or control characters, not \"\(text.prefix(40))\"")
        }
        guard start.isFinite, end.isFinite, start >= 0, end >= start, end <= Self.latestTime else {
            throw VoiceNoteError(.invalidArgument, "a word's times are 0 ≤ start ≤ end ≤ \(Self.latestTime) s, not \(start)…\(end) s")
        }
        guard confidence.isFinite, (0...1).contains(confidence) else {
            throw VoiceNoteError(.invalidArgument, "a word's confidence is 0…1, not \(confidence)")
        }
        self.text = text
        self.start = start
        self.end = end
        self.confidence = confidence
    }
}

/// The words of a note, in order, and which recogniser heard them.
public struct Transcript: Sendable, Equatable {
    /// The words, by start time.
    public var words: [TranscriptWord]
    /// The recogniser that made them (`TranscriptionBackend.identity`): a transcript kept by one is not served for
    /// another.
    public var recogniser: String

    /// A transcript of `words` by `recogniser`.
    public init(words: [TranscriptWord], recogniser: String) {
        self.words = words
        self.recogniser = recogniser
    }

    /// The words joined by single spaces: the text a receiver without a recogniser reads.
    public var text: String { words.map(\.text).joined(separator: " ") }

    /// The index of the word being said at `seconds` (the last word starting at or before it), nil before the first.
    public func wordIndex(at seconds: Double) -> Int? {
        words.lastIndex { $0.start <= seconds }
    }

    /// How far before a word a seek to it lands: PocketSphinx's frames are 10 ms and its boundaries fall inside the
    /// attack of a consonant, so a seek exactly to `start` can clip the word's first sound.
    public static let seekLeadIn = 0.05

    /// Where a player seeks to play a word starting at `start` seconds from its first sound.
    public static func seekTime(ofWordAt start: Double) -> Double { max(0, start - seekLeadIn) }

    /// Whether every word of `query` (split at white space, compared without regard to case) is among the words, in
    /// any order: `voicenote search`.
    public func contains(allOf query: String) -> Bool { firstMatch(allOf: query) != nil }

    /// The first word said of those in `query` when every one of them is among the words (as `contains(allOf:)`),
    /// else nil: where a search's hit begins.
    public func firstMatch(allOf query: String) -> TranscriptWord? {
        let wanted = Set(query.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init))
        guard !wanted.isEmpty, wanted.isSubset(of: Set(words.map { $0.text.lowercased() })) else { return nil }
        return words.first { wanted.contains($0.text.lowercased()) }
    }
}
