import Testing
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteTranscript

/// A transcript carried with the note: a Stream payload's extra data, a Matrix content's body, MSC1767 text and
/// our words with their times; a stranger's malformed transcript is not taken.
@Suite struct PayloadTranscriptTests {
    static func transcript() throws -> Transcript {
        Transcript(words: [try TranscriptWord(text: "call", start: 0.25, end: 0.5, confidence: 0.9),
                           try TranscriptWord(text: "me", start: 0.52, end: 0.7, confidence: 0.456)],
                   recogniser: "pocketsphinx/en-us")
    }

    static func payload() throws -> VoiceRecordingPayload {
        try VoiceRecordingPayload(assetURL: "mxc://example.org/abc", title: nil, fileSize: 1000, mimeType: "audio/ogg",
                                  duration: 1.5, waveform: [0.1, 0.5])
    }

    @Test func aStreamPayloadCarriesItInItsExtraData() throws {
        var payload = try Self.payload()
        try payload.setTranscript(try Self.transcript())
        #expect(payload.transcript == (try Self.transcript()))
        let again = try VoiceRecordingPayload(json: payload.json())
        #expect(again.transcript == (try Self.transcript()))
        #expect(payload.json().contains("\"voicenote_transcript\""))
        try payload.setTranscript(nil)
        #expect(payload.transcript == nil && !payload.json().contains("voicenote_transcript"))
    }

    @Test func aMatrixContentCarriesTheTextWhereEveryClientReadsItAndTheWordsAsIntegers() throws {
        var payload = try Self.payload()
        try payload.setTranscript(try Self.transcript())
        let content = try MatrixVoiceMessage.content(of: payload)
        let top = try JSONDocument(parsing: content, limits: .payload, what: "content").top
        #expect(top["body"]?.string == "Voice message: call me")
        #expect(top["org.matrix.msc1767.text"]?.string == "call me")
        #expect(content.contains(#"[["call",250,500,900],["me",520,700,456]]"#), "not integers: \(content)")
        let (read, isVoice) = try MatrixVoiceMessage.payload(fromContent: content)
        #expect(isVoice)
        let words = try #require(read.transcript).words
        #expect(words.map(\.text) == ["call", "me"] && words[1].start == 0.52 && words[1].confidence == 0.456)
        #expect(try MatrixVoiceMessage.content(of: payload, body: "🎤").contains("\"body\":\"🎤\""))
    }

    @Test(arguments: [
        #"{"recogniser":"x","words":[["two words",0,10,500]]}"#,
        #"{"recogniser":"x","words":[["a",20,10,500]]}"#,
        #"{"recogniser":"x","words":[["a",0,10,1500]]}"#,
        #"{"recogniser":"","words":[]}"#,
        #"{"recogniser":"x","words":[["a",0,10]]}"#,
        #"{"recogniser":"x","words":"a b"}"#,
    ])
    func aStrangersMalformedTranscriptIsNotTaken(transcript: String) throws {
        let content = #"{"msgtype":"m.audio","body":"Voice message","url":"mxc://example.org/abc","org.voicenote.transcript":"#
            + transcript + "}"
        let (payload, _) = try MatrixVoiceMessage.payload(fromContent: content)
        #expect(payload.transcript == nil)
    }

    @Test func aMatrixContentStaysUnderTheEventLimit() throws {
        var payload = try Self.payload()
        // 2500 words: their times do not fit in 64 KiB; the text alone does.
        let words = try (0..<2500).map { try TranscriptWord(text: "wörd\($0)", start: Double($0), end: Double($0) + 0.5, confidence: 0.5) }
        try payload.setTranscript(Transcript(words: words, recogniser: "x"))
        let content = try MatrixVoiceMessage.content(of: payload)
        #expect(content.utf8.count <= 60_000 && !content.contains("org.voicenote.transcript"))
        let top = try JSONDocument(parsing: content, limits: .payload, what: "content").top
        #expect(top["org.matrix.msc1767.text"]?.string == payload.transcript?.text)
        // 12000 words: the text is cut at a word, ended with "…", in both places.
        let more = try (0..<12_000).map { try TranscriptWord(text: "wörd\($0)", start: Double($0), end: Double($0) + 0.5, confidence: 0.5) }
        try payload.setTranscript(Transcript(words: more, recogniser: "x"))
        let cut = try MatrixVoiceMessage.content(of: payload)
        let cutTop = try JSONDocument(parsing: cut, limits: .payload, what: "content").top
        let shown = try #require(cutTop["org.matrix.msc1767.text"]?.string)
        #expect(cut.utf8.count <= 60_000 && shown.hasSuffix("…") && shown.hasPrefix("wörd0 wörd1"))
        #expect(cutTop["body"]?.string == "Voice message: " + shown)
        #expect(String(shown.dropLast()).split(separator: " ").allSatisfy { $0.hasPrefix("wörd") })
    }

    @Test func aTranscriptTooLargeForThePayloadIsRefused() throws {
        var payload = try Self.payload()
        let words = try (0..<30_000).map { try TranscriptWord(text: "word\($0)", start: Double($0), end: Double($0) + 0.5, confidence: 0.5) }
        #expect(throws: VoiceNoteError.self) { try payload.setTranscript(Transcript(words: words, recogniser: "x")) }
        #expect(payload.transcript == nil)
    }
}
