import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources

/// tus 1.0.0 (`UploadMode.tus`): creation (with `creation-defer-length` for a take still being recorded), PATCHes at
/// offsets, `HEAD` to resume after a failed PATCH, and termination (`DELETE`) when the upload is abandoned.
extension Uploader {
    /// The protocol version every request names.
    static let tusVersion = "1.0.0"
    /// How often a failed PATCH is resumed (from the offset `HEAD` gives) before the upload fails.
    static let tusResumeAttempts = 3

    /// Sends `body` over tus: creates the upload at the endpoint (or goes on with the one an earlier attempt created,
    /// `resuming`, from the offset its `HEAD` gives; one the server no longer knows is created again), reports
    /// `uploading(0)`, sends the bytes, and returns the upload's URL. A failure after the creation deletes the
    /// partial upload (best effort) unless the upload is resumable (`resuming` or a resumption hook: the outbox
    /// goes on from it later).
    /// - Throws: the requests' failures; `.format` for a creation answer without a `Location`.
    func sendOverTus(_ body: HTTPRequestBody, fileName: String, mimeType: String, resuming: String? = nil,
                     progress: @escaping (Int64) -> Void) throws(VoiceNoteError) -> String {
        var location: String
        var resumedAt: Int64 = 0
        if let resuming, let offset = try tusOffset(of: resuming) {
            location = resuming
            resumedAt = offset
            try setReservedURI(resuming, isNew: false)
        } else {
            location = try tusCreate(length: body.knownSize, fileName: fileName, mimeType: mimeType)
        }
        report(.uploading(progress: 0))
        do throws(VoiceNoteError) {
            switch body.content {
            case .source(let source):
                let start = source.position
                let size = source.size ?? start
                try tusSendAll(location: location, from: resumedAt, total: size - start, progress: progress) { (range) throws(VoiceNoteError) in
                    try source.seek(to: start + range.lowerBound)
                    return source
                }
            case .growing(let file):
                try tusSendGrowing(file, location: location, progress: progress)
            }
        } catch {
            if !isResumable || error.status == .cancelled { tusTerminate(location) }
            throw error
        }
        return location
    }

    /// The offset a tus upload created earlier has reached (`HEAD`), or nil when the server no longer knows it
    /// (404, 410). - Throws: the request's other failures; `.format` for an answer without `Upload-Offset`.
    private func tusOffset(of location: String) throws(VoiceNoteError) -> Int64? {
        guard Location.scheme(of: location).map({ $0 == "http" || $0 == "https" }) == true else { return nil }
        do throws(VoiceNoteError) {
            let head = try send(HTTPPost(url: location, options: try tusOptions([]), method: "HEAD"))
            guard let offset = head.headers["upload-offset"].flatMap({ Int64($0) }), offset >= 0 else {
                throw VoiceNoteError(.format, "the tus server's HEAD (HTTP \(head.code)) gives no Upload-Offset")
            }
            return offset
        } catch where error.status == .notFound {
            return nil
        }
    }

    /// `POST <endpoint>` with the length (or `Upload-Defer-Length: 1`) and the metadata tus servers expect
    /// (`filename`, `filetype`, as tus-js-client sends them). Returns the absolute URL of the upload.
    private func tusCreate(length: Int64?, fileName: String, mimeType: String) throws(VoiceNoteError) -> String {
        var headers: [(String, String)] = [("Upload-Metadata", "filename \(Self.base64(fileName)),filetype \(Self.base64(mimeType))")]
        headers.append(length.map { ("Upload-Length", String($0)) } ?? ("Upload-Defer-Length", "1"))
        let url = configuration.requestURL(endpoint: endpoint, fileName: fileName)
        let create = HTTPPost(url: url, options: try tusOptions(headers),
                              body: HTTPRequestBody(.raw(contentType: "application/offset+octet-stream"), source: MemorySource(bytes: [])))
        let response = try send(create)
        guard response.code == 201, let location = response.headers["location"], !location.isEmpty else {
            throw VoiceNoteError(.format, "the tus creation answer (HTTP \(response.code)) has no Location")
        }
        let absolute = try URLReference.resolve(location, against: url)
        guard Self.isUploadedURL(absolute), Location.scheme(of: absolute) != "mxc" else {
            throw VoiceNoteError(.format, "the tus creation answer names an upload URL that is not http(s)")
        }
        try setReservedURI(absolute)
        return absolute
    }

    /// Sends `total` bytes of a source whose bytes `range` `window` gives, from offset 0, resuming failed PATCHes.
    private func tusSendAll(location: String, from start: Int64, total: Int64, progress: @escaping (Int64) -> Void,
                            window: (Range<Int64>) throws(VoiceNoteError) -> ByteSource) throws(VoiceNoteError) {
        var offset = min(max(start, 0), total)
        var attempts = 0
        while offset < total {  // an empty file is complete once created (Upload-Length: 0)
            do throws(VoiceNoteError) {
                offset = try tusPatch(location: location, offset: offset, source: window(offset..<total), finalLength: nil,
                                      progress: progress)
            } catch {
                offset = try tusResume(after: error, location: location, attempts: &attempts)
            }
        }
    }

    /// Sends a take as its pages are written: a PATCH of what is there each time more is, the last one naming the
    /// length (`Upload-Length`, deferred at the creation).
    private func tusSendGrowing(_ file: GrowingFile, location: String, progress: @escaping (Int64) -> Void) throws(VoiceNoteError) {
        var offset: Int64 = 0
        var attempts = 0
        while true {
            let (announced, complete) = try file.waitForBytes(beyond: offset)
            do throws(VoiceNoteError) {
                offset = try tusPatch(location: location, offset: offset, source: file.window(offset..<announced),
                                      finalLength: complete ? announced : nil, progress: progress)
                if complete && offset == announced { return }
            } catch {
                offset = try tusResume(after: error, location: location, attempts: &attempts)
            }
        }
    }

    /// After a failed PATCH: the offset the server has (`HEAD`), to go on from, when the failure was the link's or
    /// the server's (`.network`) and attempts are left (after a back-off of 0.5, 1, 2 s); else the failure.
    private func tusResume(after error: VoiceNoteError, location: String, attempts: inout Int) throws(VoiceNoteError) -> Int64 {
        guard error.status == .network, attempts < Self.tusResumeAttempts else { throw error }
        attempts += 1
        try pause(seconds: 0.5 * Double(1 << (attempts - 1)))
        let head = try send(HTTPPost(url: location, options: try tusOptions([]), method: "HEAD"))
        guard let offset = head.headers["upload-offset"].flatMap({ Int64($0) }), offset >= 0 else {
            throw VoiceNoteError(.format, "the tus server's HEAD (HTTP \(head.code)) gives no Upload-Offset")
        }
        return offset
    }

    /// One `PATCH` of `source` (to its end) at `offset`, naming `finalLength` when known; returns the server's new
    /// offset. - Throws: the request's failures; `.format` for an answer without a consistent `Upload-Offset`.
    private func tusPatch(location: String, offset: Int64, source: ByteSource, finalLength: Int64?,
                          progress: @escaping (Int64) -> Void) throws(VoiceNoteError) -> Int64 {
        var headers = [("Upload-Offset", String(offset))]
        if let finalLength { headers.append(("Upload-Length", String(finalLength))) }
        let sending = source.size.map { $0 - source.position } ?? 0
        let patch = HTTPPost(url: location, options: try tusOptions(headers),
                             body: HTTPRequestBody(.raw(contentType: "application/offset+octet-stream"), source: source, method: "PATCH"))
        let response = try send(patch) { sent in progress(offset + sent) }
        guard let next = response.headers["upload-offset"].flatMap({ Int64($0) }), next >= offset, next <= offset + sending else {
            throw VoiceNoteError(.format, "the tus server's PATCH answer (HTTP \(response.code)) gives no valid Upload-Offset")
        }
        return next
    }

    /// `DELETE` of an abandoned upload (tus termination), best effort: not cancellable, bounded by short timeouts
    /// (2 s to connect, 5 s in all), its failure ignored (a server without termination lets the upload expire).
    /// Skipped once the uploader is closing: its close waits for this thread and must not wait on the network.
    private func tusTerminate(_ location: String) {
        guard !isClosing, var options = try? tusOptions([]) else { return }
        try? options.setConnectTimeout(2)
        try? options.setTransferTimeout(5)
        _ = try? HTTPPost(url: location, options: options, method: "DELETE").send(progress: { _ in })
    }

    /// The upload's HTTP options with `Tus-Resumable` and `headers` added.
    private func tusOptions(_ headers: [(String, String)]) throws(VoiceNoteError) -> HTTPOptions {
        var options = configuration.http
        try options.addHeader(name: "Tus-Resumable", value: Self.tusVersion)
        for (name, value) in headers { try options.addHeader(name: name, value: value) }
        return options
    }

    /// Standard base64 (RFC 4648, padded) of `text`'s UTF-8: tus metadata values.
    static func base64(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 {
                out.append(index <= chunk.count ? alphabet[Int(value >> (18 - 6 * index) & 63)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
