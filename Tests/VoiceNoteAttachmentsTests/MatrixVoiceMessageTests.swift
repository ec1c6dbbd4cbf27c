import Testing
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteWaveform

/// Matrix voice message contents: built from a payload as Element sends them, read back exactly, hostile contents
/// refused, and authenticated-media URLs.
@Suite struct MatrixVoiceMessageTests {
    static func payload() throws -> VoiceRecordingPayload {
        try VoiceRecordingPayload(assetURL: "mxc://example.org/media_1-A", title: "note.ogg", fileSize: 19_136,
                                  mimeType: "audio/ogg", duration: 4.8615, waveform: (0..<100).map { Double($0) / 99 })
    }

    @Test func theContentHasEveryFieldElementSends() throws {
        let content = try MatrixVoiceMessage.content(of: Self.payload())
        let top = try JSONDocument(parsing: content, limits: .payload, what: "test").top
        #expect(top["msgtype"]?.string == "m.audio" && top["body"]?.string == "Voice message")
        #expect(top["url"]?.string == "mxc://example.org/media_1-A")
        #expect(top["info"]?["duration"]?.value == .integer(4862) && top["info"]?["size"]?.value == .integer(19_136))
        #expect(top["info"]?["mimetype"]?.string == "audio/ogg")
        #expect(top["org.matrix.msc1767.audio"]?["duration"]?.value == .integer(4862))
        let waveform = top["org.matrix.msc1767.audio"]?["waveform"]?.elements.compactMap { $0.value.number }.map { Int($0) }
        #expect(waveform == MatrixWaveform.encode((0..<100).map { Float($0) / 99 }))
        #expect(top["org.matrix.msc3245.voice"]?.isObject == true)
    }

    @Test func readBackIsThePayloadWithTheMatrixRounding() throws {
        let read = try MatrixVoiceMessage.payload(fromContent: try MatrixVoiceMessage.content(of: Self.payload(), body: "hi"))
        #expect(read.isVoice && read.payload.assetURL == "mxc://example.org/media_1-A" && read.payload.title == "hi")
        #expect(read.payload.duration == 4.862 && read.payload.fileSize == 19_136 && read.payload.mimeType == "audio/ogg")
        let expected = (0..<100).map { Double($0) / 99 }
        for (got, want) in zip(try #require(read.payload.waveform), expected) { #expect(abs(got - want) <= 0.5 / 1024 + 1e-9) }
    }

    @Test func hostileContentsAreFormat() throws {
        for json in ["{}", "[]", "{\"msgtype\":\"m.audio\"}", "{\"msgtype\":\"m.audio\",\"url\":\"file:///etc/passwd\"}",
                     "{\"msgtype\":\"m.audio\",\"url\":\"mxc://h/x\",\"org.matrix.msc1767.audio\":{\"waveform\":{}}}",
                     "{\"msgtype\":\"m.audio\",\"url\":\"mxc://h/x\",\"org.matrix.msc1767.audio\":{\"waveform\":[1e300]}}",
                     "{\"msgtype\":\"m.audio\",\"url\":\"mxc://h/x\",\"info\":{\"size\":\"big\"}}",
                     "{\"msgtype\":\"m.audio\",\"url\":\"mxc://h/x\",\"org.matrix.msc1767.audio\":{\"waveform\":[" +
                        Array(repeating: "1", count: WaveformEncoding.maximumDecodedCount + 1).joined(separator: ",") + "]}}"] {
            #expect(throws: VoiceNoteError.self) { try MatrixVoiceMessage.payload(fromContent: json) }
        }
        // A huge size clamps; a negative duration reads as 0.
        let odd = try MatrixVoiceMessage.payload(fromContent:
            "{\"msgtype\":\"m.audio\",\"url\":\"mxc://h/x\",\"info\":{\"size\":1e300,\"duration\":-5}}")
        #expect(odd.payload.fileSize == 1_000_000_000_000_000 && odd.payload.duration == 0 && !odd.isVoice)
    }

    @Test func downloadURLs() throws {
        #expect(try MatrixVoiceMessage.downloadURL(mxc: "mxc://example.org/a_B-1", homeserver: "https://m.example.org//")
                == "https://m.example.org/_matrix/client/v1/media/download/example.org/a_B-1")
        for (mxc, homeserver) in [("mxc://h/a/b", "https://h"), ("mxc://h/a%2F", "https://h"), ("mxc://h", "https://h"),
                                  ("mxc://h/x", "javascript:alert(1)"), ("mxc://h/x", "https://h x"), ("mxc://h/x", "https://h#f")] {
            #expect(throws: VoiceNoteError.self) { try MatrixVoiceMessage.downloadURL(mxc: mxc, homeserver: homeserver) }
        }
    }
}
