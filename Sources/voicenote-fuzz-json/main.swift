// Fuzz target over the JSON readers of outside data: the voiceRecording payload, a channel's messages (with the
// next-item provider over them) and an attachment's type. Arbitrary bytes in, a status or a value out; never a
// crash, a hang or unbounded memory. A payload that parses must also write back and parse to the same payload.
// Built with `--sanitize=fuzzer`, libFuzzer's main drives it; built normally, it is an empty program.
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON

/// One fuzz input, read as each kind of JSON voicenote takes from outside.
func fuzzOne(_ bytes: UnsafeRawBufferPointer) {
    if let document = try? JSONDocument(parsing: bytes, limits: .payload, what: "fuzz"),
       let payload = try? VoiceRecordingPayload(document: document.top) {
        // What was read is written back and read again to the same payload (keys, order, values).
        guard let again = try? VoiceRecordingPayload(json: payload.json()), again == payload else {
            fatalError("a payload did not survive its round trip: \(payload.json())")
        }
        if let object = document.top.value.object { _ = AttachmentType(attachment: object) }
    }
    if let document = try? JSONDocument(parsing: bytes, limits: .messages, what: "fuzz"),
       let messages = try? ChannelMessages(document: document) {
        for message in messages.messages.prefix(8) {
            for url in message.voiceRecordings.prefix(4) {
                for scope in NextItemScope.allCases { _ = messages.nextItem(after: url, currentUserID: message.authorID, scope: scope) }
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
