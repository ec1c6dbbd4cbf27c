import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteTranscript
import VoiceNoteWaveform

/// Matrix voice messages: the content of an `m.room.message` as Element sends one (`msgtype: m.audio`, `info` with
/// the duration in milliseconds, the MIME type and the size, `org.matrix.msc1767.audio` with the duration and the
/// waveform as 100 integers 0…1024, and `org.matrix.msc3245.voice: {}` marking it a voice message), made from a
/// `voiceRecording` payload and read back into one; and the authenticated-media URL a client downloads it from.
public enum MatrixVoiceMessage {
    /// The content's key of the note's loudness (ours, namespaced as Matrix asks of unspecified fields;
    /// `Loudness.matrixJSON`: integers, as Matrix events allow no reals): read back into the payload's extra data, so a
    /// receiver levels the note without measuring.
    public static let loudnessKey = "org.voicenote.loudness"

    /// The content's key of the note's transcript with its word times (ours; `Transcript.matrixJSON`, integers).
    /// The text itself also goes where every client reads it: the `body` fallback and MSC1767's
    /// `org.matrix.msc1767.text`.
    public static let transcriptKey = "org.voicenote.transcript"

    /// The content for `payload`, whose `asset_url` is the `mxc://` URI of the uploaded audio (a raw upload gives
    /// it); `body` is the text clients without voice messages show (default "Voice message", or "Voice message: "
    /// and the transcript's text when the payload carries one).
    /// - Throws: `.invalidArgument` when the payload's `asset_url` is not an `mxc://` URI or its duration is missing.
    public static func content(of payload: VoiceRecordingPayload, body: String? = nil) throws(VoiceNoteError) -> String {
        _ = try MatrixContentURI(payload.assetURL)
        guard let duration = payload.duration, duration.isFinite, duration >= 0, duration < 1e9 else {
            throw VoiceNoteError(.invalidArgument, "a Matrix voice message needs the note's duration")
        }
        let milliseconds = JSONValue.integer(Int64((duration * 1000).rounded()))
        var info = JSONObject([("duration", milliseconds)])
        if let mimeType = payload.mimeType { info["mimetype"] = .string(mimeType) }
        if let size = payload.fileSize { info["size"] = .integer(size) }
        let waveform = MatrixWaveform.encode((payload.waveform ?? []).map { Float($0) }).map { JSONValue.integer(Int64($0)) }
        let transcript = payload.transcript.flatMap { $0.words.isEmpty ? nil : $0 }
        var content = JSONObject([
            ("msgtype", .string("m.audio")),
            ("body", .string(body ?? transcript.map { "Voice message: " + $0.text } ?? "Voice message")),
            ("url", .string(payload.assetURL)),
            ("info", .object(info)),
            ("org.matrix.msc1767.audio", .object(JSONObject([("duration", milliseconds), ("waveform", .array(waveform))]))),
            ("org.matrix.msc3245.voice", .object(JSONObject())),
        ])
        if let loudness = payload.loudness { content[loudnessKey] = loudness.matrixJSON }
        guard let transcript else { return try JSONValue.object(content).text() }
        return try withTranscript(transcript, content, bodyGiven: body != nil)
    }

    /// The most bytes a content may take: Matrix refuses events over 65536 bytes (M_TOO_LARGE), and the envelope the
    /// homeserver adds (ids, sender, room, timestamps, signatures) takes some of those.
    static let contentBudget = 60_000

    /// `content` with the transcript: the words with their times when everything fits in `contentBudget`; else the
    /// text alone; else the text cut at a word and ended with "…" (in `body`, unless the host gave it, and in
    /// MSC1767's text), as much as fits.
    private static func withTranscript(_ transcript: Transcript, _ content: JSONObject, bodyGiven: Bool) throws(VoiceNoteError) -> String {
        func text(_ shown: String, words: Bool) throws(VoiceNoteError) -> String {
            var full = content
            if !bodyGiven { full["body"] = .string("Voice message: " + shown) }
            full["org.matrix.msc1767.text"] = .string(shown)
            if words { full[transcriptKey] = transcript.matrixJSON }
            return try JSONValue.object(full).text()
        }
        let whole = transcript.text
        if transcript.words.count <= Transcript.largestCarried, case let all = try text(whole, words: true), all.utf8.count <= contentBudget { return all }
        var shown = whole
        while true {
            let attempt = try text(shown, words: false)
            if attempt.utf8.count <= contentBudget || shown.isEmpty { return attempt }
            let over = attempt.utf8.count - contentBudget
            let keep = max(0, shown.utf8.count - over / (bodyGiven ? 1 : 2) - 8)
            var cut = Substring(shown)
            while cut.utf8.count > keep { cut = cut.dropLast(max(1, (cut.utf8.count - keep) / 4)) }
            if let space = cut.lastIndex(of: " ") { cut = cut[..<space] }
            shown = cut.isEmpty ? "" : String(cut) + "…"
        }
    }

    /// A received content read back: the payload (`asset_url` the `mxc://` URI, `title` the body, the MIME type,
    /// size, duration in seconds and the waveform decoded to 0…1 — from `org.matrix.msc1767.audio`, the duration
    /// from `info` when that has none), and whether it is marked a voice message.
    /// - Throws: `.format` for JSON that is not an `m.audio` content with an `mxc://` URL of the Matrix grammar
    ///   (`MatrixContentURI`), whose known fields have the wrong types, or whose `body` or `info.mimetype` holds a
    ///   NUL character; `.tooLarge` over 1 MiB.
    public static func payload(fromContent json: String) throws(VoiceNoteError) -> (payload: VoiceRecordingPayload, isVoice: Bool) {
        try payload(fromContent: JSONDocument(parsing: json, limits: .payload, what: "a Matrix message content").top)
    }

    /// `payload(fromContent:)` of a parsed content.
    public static func payload(fromContent top: JSONNode) throws(VoiceNoteError) -> (payload: VoiceRecordingPayload, isVoice: Bool) {
        guard top.isObject, top["msgtype"]?.string == "m.audio", let url = top["url"]?.string else {
            throw VoiceNoteError(.format, "not a Matrix m.audio content with a url")
        }
        do { _ = try MatrixContentURI(url) } catch { throw VoiceNoteError(.format, error.message) }
        let info = top["info"], audio = top["org.matrix.msc1767.audio"]
        for (name, node) in [("info", info), ("org.matrix.msc1767.audio", audio)] where node.map({ !$0.isObject }) ?? false {
            throw VoiceNoteError(.format, "\(name) must be a JSON object")
        }
        let audioDuration = try number(audio?["duration"], "duration")
        let infoDuration = try number(info?["duration"], "info.duration")
        let milliseconds = audioDuration ?? infoDuration
        var waveform: [Double]?
        if let values = audio?["waveform"] {
            guard values.isArray else { throw VoiceNoteError(.format, "the waveform must be an array of integers") }
            let integers: [Int] = try values.elements.map { (node) throws(VoiceNoteError) -> Int in
                guard let value = node.value.number, value.isFinite, abs(value) < 1e9 else {
                    throw VoiceNoteError(.format, "the waveform must be an array of integers")
                }
                return Int(value.rounded())
            }
            do { waveform = try MatrixWaveform.decode(integers).map(Double.init) } catch {
                throw VoiceNoteError(.format, "the waveform is too long")
            }
        }
        let size = try number(info?["size"], "info.size")
        let body = top["body"]?.string, mimeType = info?["mimetype"]?.string
        try VoiceRecordingPayload.refuseNUL(body, named: "body")
        try VoiceRecordingPayload.refuseNUL(mimeType, named: "info.mimetype")
        let payload = try VoiceRecordingPayload(
            assetURL: url, title: body, fileSize: size.map { Int64(min(max($0, 0), 1e15)) },
            mimeType: mimeType, duration: milliseconds.map { max(0, $0) / 1000 }, waveform: waveform)
        var levelled = payload
        levelled.setLoudness(Loudness(matrixJSON: top[loudnessKey]?.value))
        if let transcript = Transcript(matrixJSON: top[transcriptKey]?.value) { try? levelled.setTranscript(transcript) }
        return (levelled, top["org.matrix.msc3245.voice"]?.isObject ?? false)
    }

    /// A number field, nil when absent. - Throws: `.format` when it is there but not a finite number.
    private static func number(_ node: JSONNode?, _ name: String) throws(VoiceNoteError) -> Double? {
        guard let node else { return nil }
        guard let value = node.value.number, value.isFinite else { throw VoiceNoteError(.format, "\(name) must be a number") }
        return value
    }

    /// Where a client downloads `mxc` from with authenticated media (Matrix 1.11):
    /// `<homeserver>/_matrix/client/v1/media/download/<server>/<media id>`, requested with the header
    /// `Authorization: Bearer <access token>`. `homeserver` is the client-server API's base URL.
    /// - Throws: `.invalidArgument` for an `mxc` that is not `mxc://<server name>/<media id>` of the Matrix grammar
    ///   (`MatrixContentURI`) or a homeserver that is not an http(s) URL.
    public static func downloadURL(mxc: String, homeserver: String) throws(VoiceNoteError) -> String {
        let uri = try MatrixContentURI(mxc)
        var base = homeserver
        while base.hasSuffix("/") { base.removeLast() }
        let lower = base.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), !base.contains("?"), !base.contains("#"),
              base.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw VoiceNoteError(.invalidArgument, "the homeserver must be an http(s) base URL, not \(homeserver)")
        }
        return base + "/_matrix/client/v1/media/download/" + uri.server + "/" + uri.mediaID
    }
}
