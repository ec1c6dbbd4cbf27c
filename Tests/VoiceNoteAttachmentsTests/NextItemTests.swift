import Foundation
import Testing
import VoiceNoteCore
@testable import VoiceNoteAttachments

/// SPEC's Stream fixture, shared with the C and Python tests.
private func streamFixture() throws -> String {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    return try String(contentsOf: here.appendingPathComponent("../Fixtures/messages/stream-next-item.json"), encoding: .utf8)
}

private func vr(_ n: Int) -> String { "https://cdn.example.com/vr\(n).ogg" }

@Suite struct NextItemTests {
    @Test func streamsFixture() throws {
        let messages = try ChannelMessages(json: try streamFixture())
        #expect(messages.messages.count == 11)
        #expect(messages.messages[4].voiceRecordings == [vr(1), vr(2)])
        #expect(ChannelMessages([]).nextItem(after: vr(1), currentUserID: "C", scope: .sameMessage) == nil)
        #expect(messages.nextItem(after: "https://cdn.example.com/unknown.ogg", currentUserID: "C", scope: .sameMessage) == nil)
        #expect(messages.nextItem(after: vr(1), currentUserID: "C", scope: .sameMessage) == vr(2))
        #expect(messages.nextItem(after: vr(2), currentUserID: "C", scope: .sameMessage) == nil)
        #expect(messages.nextItem(after: vr(1), currentUserID: "C", scope: .subsequentMessagesFromUser) == vr(2))
        #expect(messages.nextItem(after: vr(2), currentUserID: "C", scope: .subsequentMessagesFromUser) == vr(3))
        #expect(messages.nextItem(after: vr(3), currentUserID: "C", scope: .subsequentMessagesFromUser) == nil)
        #expect(messages.nextItem(after: "", currentUserID: "C", scope: .consecutive) == nil)
    }

    private func message(_ author: String, _ attachments: [(String, String)]) -> String {
        let list = attachments.map { #"{"type":"\#($0.0)","asset_url":"\#($0.1)"}"# }.joined(separator: ",")
        return #"{"id":"x","user":{"id":"\#(author)"},"attachments":[\#(list)]}"#
    }

    @Test func consecutiveScope() throws {
        let json = "[" + [
            message("A", [("voiceRecording", "a1")]),
            message("B", [("image", "i1"), ("voiceRecording", "b1")]),
            message("C", [("voiceRecording", "c1")]),
            message("A", [("voiceRecording", "a2")]),
            message("B", [("image", "i2")]),
            message("A", [("voiceRecording", "a3")]),
        ].joined(separator: ",") + "]"
        let messages = try ChannelMessages(json: json)
        // Across authors, skipping other types.
        #expect(messages.nextItem(after: "a1", currentUserID: "C", scope: .consecutive) == "b1")
        // The current user's own note is skipped.
        #expect(messages.nextItem(after: "b1", currentUserID: "C", scope: .consecutive) == "a2")
        // A message with no note ends the run.
        #expect(messages.nextItem(after: "a2", currentUserID: "C", scope: .consecutive) == nil)
        // The current user's note has no next.
        #expect(messages.nextItem(after: "c1", currentUserID: "C", scope: .consecutive) == nil)
        // subsequent-messages-from-user looks one message ahead only.
        #expect(messages.nextItem(after: "a1", currentUserID: "C", scope: .subsequentMessagesFromUser) == nil)
    }

    @Test func theNewestMessageWithTheURLCounts() throws {
        let json = "[" + [
            message("A", [("voiceRecording", "same"), ("voiceRecording", "old-next")]),
            message("B", [("voiceRecording", "same"), ("voiceRecording", "new-next")]),
        ].joined(separator: ",") + "]"
        let messages = try ChannelMessages(json: json)
        #expect(messages.nextItem(after: "same", currentUserID: "C", scope: .sameMessage) == "new-next")
        #expect(messages.nextItem(after: "same", currentUserID: "B", scope: .sameMessage) == nil)
    }

    @Test func scopesByName() throws {
        #expect(try NextItemScope(name: "same-message") == .sameMessage)
        #expect(try NextItemScope(name: "subsequent-messages-from-user") == .subsequentMessagesFromUser)
        #expect(try NextItemScope(name: "consecutive") == .consecutive)
        #expect(throws: VoiceNoteError(.invalidArgument, "unknown scope \"next\" (one of same-message, subsequent-messages-from-user, consecutive)")) {
            try NextItemScope(name: "next")
        }
    }

    @Test func badMessageListsAreFormatErrors() {
        for bad in ["{}", "[1]", #"[{"attachments":{}}]"#, #"[{"attachments":[7]}]"#, "[", #"[{"id":"a","id":"b"}]"#] {
            #expect(throws: VoiceNoteError.self, "\(bad)") { try ChannelMessages(json: bad) }
        }
        // Missing keys are absent, not errors; a user without an id is nobody.
        let lenient = try? ChannelMessages(json: #"[{"attachments":[{"type":"voiceRecording","asset_url":"u"}]},{"user":{}}]"#)
        #expect(lenient?.messages.map(\.authorID) == [nil, nil])
        #expect(lenient?.nextItem(after: "u", currentUserID: nil, scope: .subsequentMessagesFromUser) == nil)
    }

    @Test func tenMegabytesOfMessages() throws {
        let one = message("A", [("voiceRecording", "https://cdn.example.com/%d.ogg"), ("image", "https://cdn.example.com/i.png")])
        var parts: [String] = []
        var size = 0
        var count = 0
        while size < 10 << 20 {
            let text = one.replacingOccurrences(of: "%d", with: String(count))
            parts.append(text)
            size += text.utf8.count + 1
            count += 1
        }
        let messages = try ChannelMessages(json: "[" + parts.joined(separator: ",") + "]")
        #expect(messages.messages.count == count)
        #expect(messages.nextItem(after: "https://cdn.example.com/7.ogg", currentUserID: "C", scope: .consecutive) == "https://cdn.example.com/8.ogg")
        #expect(messages.nextItem(after: "https://cdn.example.com/\(count - 1).ogg", currentUserID: "C", scope: .consecutive) == nil)
    }

    @Test func anAssetURLWithANULIsAFormatError() throws {
        // Cut at the NUL, C would be handed "https://h/2" — another resource than the message names.
        let messages = #"[{"id":"1","user":{"id":"a"},"attachments":[{"type":"voiceRecording","asset_url":"https://h/1.ogg"},"#
            + #"{"type":"voiceRecording","asset_url":"https://h/2\u0000.ogg?sig=x"}]}]"#
        #expect(throws: VoiceNoteError(.format, "a voiceRecording asset_url of message 0 holds a NUL character")) {
            _ = try ChannelMessages(json: messages)
        }
    }

    @Test func aPayloadStringWithANULIsAFormatError() throws {
        for key in ["asset_url", "title", "mime_type", "type"] {
            var fields = ["type": "voiceRecording", "asset_url": "https://cdn.example/ok.ogg", "title": "t", "mime_type": "audio/ogg"]
            fields[key] = (fields[key] ?? "") + "\\u0000@evil.example/x"
            let json = "{" + fields.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
            #expect(throws: VoiceNoteError(.format, "\(key) holds a NUL character"), "\(json)") { _ = try VoiceRecordingPayload(json: json) }
        }
        // Extra data is handed over as JSON text, where the NUL stays escaped: kept.
        let extra = try VoiceRecordingPayload(json: #"{"type":"voiceRecording","asset_url":"https://x/a","note":"a\u0000b"}"#)
        #expect(extra.extraData["note"] == .string("a\u{0}b"))
    }
}
