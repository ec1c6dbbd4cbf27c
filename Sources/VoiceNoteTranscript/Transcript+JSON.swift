import VoiceNoteCore
import VoiceNoteJSON

extension Transcript {
    /// The transcript as JSON (docs/transcripts.md): `{"recogniser": …, "text": …, "words": [{"text", "start",
    /// "end", "confidence"}…]}`, times in seconds.
    public var jsonValue: JSONValue {
        .object(JSONObject([
            ("recogniser", .string(recogniser)), ("text", .string(text)),
            ("words", .array(words.map { word in
                .object(JSONObject([("text", .string(word.text)), ("start", .real(word.start)), ("end", .real(word.end)),
                                    ("confidence", .real(word.confidence))]))
            })),
        ]))
    }

    /// `jsonValue` as text.
    public func json(indent: Int = 0) -> String {
        (try? jsonValue.text(indent: indent)) ?? "{}"
    }
}

extension Transcript {
    /// The most words a carried transcript may hold: two hours of speech at five words a second; more is no note's.
    public static let largestCarried = 36_000

    /// A transcript from `jsonValue`'s form (a payload's, a host's), checked word by word as a backend's are;
    /// nil for anything else (a stranger's payload: wrong types, bad words or times, too many words).
    public init?(jsonValue value: JSONValue?) {
        guard let object = value?.object, let recogniser = object["recogniser"]?.string, !recogniser.isEmpty,
              let list = object["words"]?.array, list.count <= Self.largestCarried else { return nil }
        var words: [TranscriptWord] = []
        words.reserveCapacity(list.count)
        for item in list {
            guard let word = item.object, let text = word["text"]?.string, let start = word["start"]?.number,
                  let end = word["end"]?.number, let confidence = word["confidence"]?.number,
                  let made = try? TranscriptWord(text: text, start: start, end: end, confidence: confidence) else { return nil }
            words.append(made)
        }
        self.init(words: words, recogniser: recogniser)
    }

    /// The transcript as a Matrix content carries it (`org.voicenote.transcript`): integers only, as Matrix events
    /// allow no reals — `{"recogniser", "words": [[text, start ms, end ms, confidence ‰]…]}`.
    public var matrixJSON: JSONValue {
        func milliseconds(_ seconds: Double) -> JSONValue { .integer(Int64((seconds * 1000).rounded())) }
        return .object(JSONObject([
            ("recogniser", .string(recogniser)),
            ("words", .array(words.map { word in
                .array([.string(word.text), milliseconds(word.start), milliseconds(word.end),
                        .integer(Int64((word.confidence * 1000).rounded()))])
            })),
        ]))
    }

    /// A transcript from `matrixJSON`'s form; nil for anything else.
    public init?(matrixJSON value: JSONValue?) {
        guard let object = value?.object, let recogniser = object["recogniser"]?.string, !recogniser.isEmpty,
              let list = object["words"]?.array, list.count <= Self.largestCarried else { return nil }
        var words: [TranscriptWord] = []
        words.reserveCapacity(list.count)
        for item in list {
            guard let fields = item.array, fields.count == 4, let text = fields[0].string,
                  let start = fields[1].number, let end = fields[2].number, let permille = fields[3].number,
                  start.magnitude < 1e12, end.magnitude < 1e12,
                  let made = try? TranscriptWord(text: text, start: start / 1000, end: end / 1000, confidence: permille / 1000)
            else { return nil }
            words.append(made)
        }
        self.init(words: words, recogniser: recogniser)
    }
}
