#if canImport(Glibc)
import Glibc
#endif
import CVoiceNote
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON

/// C copies of the few texts returned as static (attachment and MIME types from fixed tables): made once each,
/// kept for the life of the process.
private let internedTexts = Locked<[String: UnsafeMutablePointer<CChar>]>([:])

private func interned(_ text: String) -> UnsafePointer<CChar> {
    internedTexts.withLock { table in
        if let known = table[text] { return UnsafePointer(known) }
        // Out of memory for a short table entry: the empty static text rather than NULL.
        guard let copy = strdup(text) else { return UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self) }
        table[text] = copy
        return UnsafePointer(copy)
    }
}

/// A file name from C: NULL or invalid UTF-8 is a name without an extension.
private func fileName(_ text: UnsafePointer<CChar>?) -> String {
    text.flatMap { String(validatingCString: $0) } ?? ""
}

@c @implementation public func vn_attachment_type_for_file(_ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    interned(AttachmentType(fileName: fileName(name)).rawValue)
}

@c @implementation public func vn_mime_type_for_file(_ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    interned(MIMEType(fileName: fileName(name)).rawValue)
}

@c @implementation public func vn_attachment_type_of_json(_ json: UnsafePointer<CChar>?, _ length: Int, _ outType: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outType?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(outType, "out_type")
        let document = try JSONDocument(parsing: try textBuffer(json, length, "json"), limits: .payload, what: "the attachment")
        guard let object = document.top.value.object else { throw VoiceNoteError(.format, "the attachment is not a JSON object") }
        out.pointee = try ownedCString(AttachmentType(attachment: object).rawValue)
    }
}

@c @implementation public func vn_attachment_check_local(_ location: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ maxBytes: Int64) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        guard maxBytes >= 0 else { throw VoiceNoteError(.invalidArgument, "max_bytes \(maxBytes) is negative (0: the default)") }
        _ = try LocalAttachment(location: try nonEmptyString(location, "location"), type: AttachmentType(rawValue: try utf8String(type, "type")),
                                maximumBytes: maxBytes == 0 ? LocalAttachment.defaultMaximumBytes : maxBytes)
    }
}

@c @implementation public func vn_recording_display_name(_ index: Int32, _ outName: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outName?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(outName, "out_name")
        out.pointee = try ownedCString(try RecordingName.displayName(index: Int(index)))
    }
}

/// The scope of a `vn_next_scope` number; `.invalidArgument` for another.
func nextScope(_ scope: Int32) throws(VoiceNoteError) -> NextItemScope {
    switch UInt32(bitPattern: scope) {
    case VN_NEXT_SAME_MESSAGE.rawValue: return .sameMessage
    case VN_NEXT_SUBSEQUENT_FROM_USER.rawValue: return .subsequentMessagesFromUser
    case VN_NEXT_CONSECUTIVE.rawValue: return .consecutive
    default: throw VoiceNoteError(.invalidArgument, "scope \(scope) is not a vn_next_scope")
    }
}

@c @implementation public func vn_find_next_item(
    _ messagesJSON: UnsafePointer<CChar>?, _ length: Int, _ currentURL: UnsafePointer<CChar>?,
    _ currentUserID: UnsafePointer<CChar>?, _ scope: Int32, _ outURL: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    outURL?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(outURL, "out_url")
        let scope = try nextScope(scope)
        let current = try currentURL.map { (text) throws(VoiceNoteError) in try utf8String(text, "current_url") }
        let user = try currentUserID.map { (text) throws(VoiceNoteError) in try utf8String(text, "current_user_id") }
        let messages = try channelMessages(messagesJSON, length)
        guard let current else { return }  // nothing plays: nothing follows
        out.pointee = try messages.nextItem(after: current, currentUserID: user, scope: scope).map(ownedCString)
    }
}

/// The message list a C caller passes as `messages_json` and `length`.
func channelMessages(_ json: UnsafePointer<CChar>?, _ length: Int) throws(VoiceNoteError) -> ChannelMessages {
    try ChannelMessages(document: try JSONDocument(parsing: try textBuffer(json, length, "messages_json"),
                                                   limits: .messages, what: "the message list"))
}

@c @implementation public func vn_strdup(_ text: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    text.flatMap { strdup($0) }
}
