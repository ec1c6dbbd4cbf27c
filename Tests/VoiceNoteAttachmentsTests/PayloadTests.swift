import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteTestSupport
@testable import VoiceNoteAttachments

@Suite struct PayloadTests {
    /// Stream's test: the four keys decode with no extra data; an extra key lands in extra data.
    @Test func streamsPayloadTests() throws {
        let plain = #"{"title":"Recording","asset_url":"https://cdn.example.com/a.aac","file_size":10485760,"mime_type":"audio/aac"}"#
        let payload = try VoiceRecordingPayload(json: plain)
        #expect(payload.title == "Recording")
        #expect(payload.assetURL == "https://cdn.example.com/a.aac")
        #expect(payload.fileSize == 10_485_760)
        #expect(payload.mimeType == "audio/aac")
        #expect(payload.extraData.isEmpty)
        #expect(payload.json() == plain)

        let commented = try VoiceRecordingPayload(json: #"{"title":"R","asset_url":"https://x/a.aac","comment":"hi"}"#)
        #expect(commented.extraData == JSONObject([("comment", .string("hi"))]))
    }

    @Test func everyKey() throws {
        let text = #"{"type":"voiceRecording","title":"note.ogg","asset_url":"https://x/n.ogg","file_size":123,"#
            + #""mime_type":"audio/ogg","duration":2.5,"waveform_data":[0,0.25,1]}"#
        let payload = try VoiceRecordingPayload(json: text)
        #expect(payload.type == "voiceRecording")
        #expect(payload.duration == 2.5)
        #expect(payload.waveform == [0, 0.25, 1])
        #expect(payload.json() == text)
        let fresh = try VoiceRecordingPayload(assetURL: "https://x/n.ogg", title: "note.ogg", fileSize: 123, mimeType: "audio/ogg",
                                              duration: 2.5, waveform: [0, 0.25, 1])
        #expect(fresh.json() == #"{"type":"voiceRecording","title":"note.ogg","asset_url":"https://x/n.ogg","file_size":123,"#
            + #""mime_type":"audio/ogg","duration":2.5,"waveform_data":[0.0,0.25,1.0]}"#)
        let bare = try VoiceRecordingPayload(assetURL: "mxc://example.org/abc")
        #expect(bare.json() == #"{"type":"voiceRecording","asset_url":"mxc://example.org/abc"}"#)
    }

    @Test func nestedExtraDataRoundTripsExactly() throws {
        let text = #"{"zz":{"list":[1,"two",{"三":3.0}],"empty":{}},"asset_url":"https://x/a.ogg","#
            + #""max":9223372036854775807,"min":-9223372036854775808,"real":0.1,"e":1e-07,"#
            + #""text":"quote \" tab \t nul \u0000 é 😀","title":"t","flag":true,"none":null}"#
        let payload = try VoiceRecordingPayload(json: text)
        #expect(payload.json() == text)
        #expect(payload.extraData.keys == ["zz", "max", "min", "real", "e", "text", "flag", "none"])
        #expect(payload.extraData["max"] == .integer(.max))
        #expect(payload.extraData["text"] == .string("quote \" tab \t nul \u{0} é 😀"))
        // Editing a known key keeps every position.
        var edited = payload
        edited.title = "renamed"
        #expect(edited.json() == text.replacingOccurrences(of: #""title":"t""#, with: #""title":"renamed""#))
    }

    @Test func fileSizeIsAnIntegerOrARoundedReal() throws {
        func size(_ json: String) throws -> Int64? {
            try VoiceRecordingPayload(json: #"{"asset_url":"https://x/a","file_size":"# + json + "}").fileSize
        }
        #expect(try size("1024") == 1024)
        #expect(try size("1024.6") == 1025)
        #expect(try size("-3") == 0)
        #expect(try size("1e300") == 0)
        #expect(try size("-1e19") == 0)
        #expect(try size("9.2e18") == 9_200_000_000_000_000_000)
        #expect(try size("\"12\"") == 0)
        #expect(try size("null") == 0)
        let rounded = try VoiceRecordingPayload(json: #"{"asset_url":"https://x/a","file_size":10.4}"#)
        #expect(rounded.json() == #"{"asset_url":"https://x/a","file_size":10}"#)
    }

    @Test func badPayloadsAreRefused() {
        func status(_ json: String) -> Status? {
            do {
                _ = try VoiceRecordingPayload(json: json)
                return nil
            } catch { return error.status }
        }
        #expect(status("[]") == .format)
        #expect(status("{}") == .format)
        #expect(status(#"{"asset_url":"relative/path.ogg"}"#) == .format)
        #expect(status(#"{"asset_url":7}"#) == .format)
        #expect(status(#"{"asset_url":"https://x/a","title":5}"#) == .format)
        #expect(status(#"{"asset_url":"https://x/a","duration":"long"}"#) == .format)
        #expect(status(#"{"asset_url":"https://x/a","waveform_data":[0.1,"x"]}"#) == .format)
        #expect(status(#"{"asset_url":"https://x/a","a":1,"a":2}"#) == .format)
        #expect(status(#"{"asset_url":"https://x/a","n":18446744073709551616}"#) == .format)
        #expect(status(#"{"asset_url":"https://x/a","x":""# + String(repeating: "y", count: 1 << 20) + #""}"#) == .tooLarge)
        #expect(status(String(repeating: "[", count: 10_000)) == .format)
        #expect(throws: VoiceNoteError.self) { try VoiceRecordingPayload(assetURL: "no-scheme") }
        #expect(throws: VoiceNoteError.self) { try VoiceRecordingPayload(assetURL: "https://x/a", duration: .nan) }
        #expect(throws: VoiceNoteError.self) { try VoiceRecordingPayload(assetURL: "https://x/a", waveform: [.infinity]) }
        #expect(throws: VoiceNoteError.self) {
            try VoiceRecordingPayload(assetURL: "https://x/a", extraData: JSONObject([("title", .string("no"))]))
        }
    }

    @Test func knownKeysSetLaterGoToTheirPlace() throws {
        var payload = try VoiceRecordingPayload(assetURL: "https://x/a")
        try payload.setDuration(2)
        payload.title = "t"
        payload.fileSize = 5
        #expect(payload.json() == #"{"type":"voiceRecording","title":"t","asset_url":"https://x/a","file_size":5,"duration":2.0}"#)
        var read = try VoiceRecordingPayload(json: #"{"a":1,"asset_url":"https://x/a","b":2}"#)
        read.mimeType = "audio/ogg"
        read.title = "t"
        #expect(read.json() == #"{"a":1,"title":"t","asset_url":"https://x/a","mime_type":"audio/ogg","b":2}"#)
        var extraOnly = try VoiceRecordingPayload(json: #"{"asset_url":"https://x/a"}"#)
        try extraOnly.setType(.voiceRecording)
        #expect(extraOnly.json() == #"{"type":"voiceRecording","asset_url":"https://x/a"}"#)
    }

    @Test func extraDataReplacementKeepsPositions() throws {
        var payload = try VoiceRecordingPayload(json: #"{"a":1,"asset_url":"https://x/a","b":2,"c":3}"#)
        try payload.setExtraData(JSONObject([("c", .integer(30)), ("a", .integer(10)), ("d", .integer(4))]))
        #expect(payload.json() == #"{"a":10,"asset_url":"https://x/a","c":30,"d":4}"#)
    }

    @Test func attachmentTypesAndMIMETypes() {
        #expect(AttachmentType(fileName: "a.ogg") == .audio)
        #expect(AttachmentType(fileName: "/x/y/photo.JPG") == .image)
        #expect(AttachmentType(fileName: "clip.mp4") == .video)
        #expect(AttachmentType(fileName: "doc.pdf") == .file)
        #expect(AttachmentType(fileName: "noextension") == .file)
        #expect(AttachmentType(fileName: ".hidden") == .file)
        #expect(AttachmentType(attachment: JSONObject([("type", .string("image")), ("og_scrape_url", .string("https://x"))])) == .linkPreview)
        #expect(AttachmentType(attachment: JSONObject([("asset_url", .string("https://x"))])) == .unknown)
        #expect(AttachmentType(attachment: JSONObject([("type", .string("poll"))])).rawValue == "poll")
        let table = ["a.ogg": "audio/ogg", "a.opus": "audio/ogg", "a.aac": "audio/aac", "a.m4a": "audio/mp4",
                     "a.mp3": "audio/mpeg", "a.wav": "audio/wav", "a.xyz": "application/octet-stream", "a": "application/octet-stream"]
        for (name, mime) in table { #expect(MIMEType(fileName: name).rawValue == mime, "\(name)") }
        #expect(AttachmentType.uploadable == [.image, .video, .audio, .file, .voiceRecording])
    }

    @Test func displayNames() throws {
        #expect(try RecordingName.displayName(index: 0) == "Recording")
        #expect(try RecordingName.displayName(index: 1) == "Recording(1)")
        #expect(try RecordingName.displayName(index: 12) == "Recording(12)")
        #expect(throws: VoiceNoteError.self) { try RecordingName.displayName(index: -1) }
    }

    @Test func fileURLs() throws {
        #expect(FileURL.make(path: "/tmp/a b/é.ogg") == "file:///tmp/a%20b/%C3%A9.ogg")
        #expect(try FileURL.path(of: "file:///tmp/a%20b/%C3%A9.ogg") == "/tmp/a b/é.ogg")
        #expect(try FileURL.path(of: "file://localhost/tmp/x") == "/tmp/x")
        for bad in ["https://x/a.ogg", "file://host/x", "file:///%zz", "file:///a%00b", "relative"] {
            #expect(throws: VoiceNoteError.self, "\(bad)") { try FileURL.path(of: bad) }
        }
    }

    @Test func aFinishedRecordingsPayload() throws {
        let path = try Fixtures.path(.opus)
        let payload = try VoiceRecordingPayload.fromRecording(path: path)
        #expect(payload.title == "speech.ogg")
        #expect(payload.assetURL == FileURL.make(path: path))
        #expect(payload.fileSize == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value)
        #expect(payload.mimeType == "audio/ogg")
        #expect((payload.duration ?? 0) > 0.5)
        #expect(payload.waveform?.count == 100)
        #expect(payload.waveform?.allSatisfy { (0...1).contains($0) } == true)
        let given = try VoiceRecordingPayload.fromRecording(path: path, duration: 1.5, waveform: [0.1, 0.2])
        #expect(given.duration == 1.5)
        #expect(given.json().contains(#""waveform_data":[0.1,0.2]"#))
        #expect(throws: VoiceNoteError.self) { try VoiceRecordingPayload.fromRecording(path: path + ".missing") }
        #expect(throws: VoiceNoteError.self) { try VoiceRecordingPayload.fromRecording(path: Fixtures.directory, duration: 1, waveform: [0.5]) }
        #expect(throws: VoiceNoteError.self) { try VoiceRecordingPayload.fromRecording(path: path, duration: 1, waveform: [.infinity]) }
    }

    @Test func localAttachmentLimits() throws {
        let path = try Fixtures.path(.opus)
        let checked = try LocalAttachment(location: FileURL.make(path: path))
        #expect(checked.path == path)
        func status(_ location: String, type: AttachmentType = .voiceRecording, limit: Int64 = LocalAttachment.defaultMaximumBytes) -> Status? {
            do {
                _ = try LocalAttachment(location: location, type: type, maximumBytes: limit)
                return nil
            } catch { return error.status }
        }
        #expect(status(path, type: .giphy) == .unsupported)
        #expect(status(path, type: .linkPreview) == .unsupported)
        #expect(status(path, type: .image) == nil)
        #expect(status("https://cdn.example.com/a.ogg") == .invalidArgument)
        #expect(status(path, limit: 10) == .tooLarge)
        #expect(status(path + ".missing") == .notFound)
        #expect(status(Fixtures.directory) == .invalidArgument)
    }
}
