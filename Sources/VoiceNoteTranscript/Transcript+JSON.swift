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
