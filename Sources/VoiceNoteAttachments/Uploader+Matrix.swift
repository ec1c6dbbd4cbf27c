import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteNetwork
import VoiceNoteSources

/// Matrix's upload to a content URI created first (MSC2246, `UploadMode.matrix`), and the one way every request of
/// an upload is sent (cancellable by `cancel`).
extension Uploader {
    /// Sends `post` as the upload's current request (`cancel` ends it), reporting request body bytes to `progress`.
    /// - Throws: `.cancelled` after `cancel`; the request's failures.
    func send(_ post: HTTPPost, progress: @escaping (Int64) -> Void = { _ in }) throws(VoiceNoteError) -> HTTPPost.Response {
        guard setCurrentPost(post) else { throw VoiceNoteError(.cancelled, "the upload was cancelled") }
        return try post.send(progress: progress)
    }

    /// Reserves a content URI (or takes the one an earlier attempt reserved, `resuming`), reports `uploading(0)`
    /// (the URI is known; a take's bytes may still wait for its end), then puts the bytes there with their length.
    /// Returns the URI. A resumed URI the homeserver already holds the bytes of (409 `M_CANNOT_OVERWRITE_MEDIA`) is
    /// done; one it no longer knows (404: an unused reservation expires) is reserved again.
    func sendToContentURI(_ body: HTTPRequestBody, fileName: String, resuming: String? = nil,
                          progress: @escaping (Int64) -> Void) throws(VoiceNoteError) -> MatrixContentURI {
        var uri: MatrixContentURI
        if let resuming, let earlier = try? MatrixContentURI(resuming) {
            uri = earlier
            try setReservedURI(earlier.text, isNew: false)
        } else {
            uri = try reserveContentURI()
        }
        report(.uploading(progress: 0))
        let put = try putBody(of: body)
        do throws(VoiceNoteError) {
            _ = try send(HTTPPost(url: configuration.putURL(endpoint: endpoint, contentURI: uri, fileName: fileName),
                                  options: configuration.http, body: put), progress: progress)
        } catch where resuming != nil && error.httpCode == 409 {
            return uri
        } catch where resuming != nil && error.httpCode == 404 {
            uri = try reserveContentURI()
            guard case .source(let source) = put.content else { throw error }
            try source.seek(to: 0)
            _ = try send(HTTPPost(url: configuration.putURL(endpoint: endpoint, contentURI: uri, fileName: fileName),
                                  options: configuration.http, body: put), progress: progress)
        }
        return uri
    }

    /// `POST <endpoint>/_matrix/media/v1/create` (no body): the homeserver reserves a content URI, which is stored
    /// for `contentURI`. - Throws: the request's failures; `.format` for an answer without a valid `mxc://` URI.
    func reserveContentURI() throws(VoiceNoteError) -> MatrixContentURI {
        let create = HTTPPost(url: configuration.createURL(endpoint: endpoint), options: configuration.http,
                              body: HTTPRequestBody(.raw(contentType: "application/json"), source: MemorySource(bytes: [])))
        let response = try send(create)
        let parsed = response.body.withUnsafeBytes { bytes in
            Result { () throws(VoiceNoteError) in
                try JSONDocument(parsing: bytes, limits: .payload, what: "the content URI answer (HTTP \(response.code))").top
            }
        }
        guard let text = try parsed.get()["content_uri"]?.string else {
            throw VoiceNoteError(.format, "the content URI answer (HTTP \(response.code)) has no \"content_uri\"")
        }
        let uri: MatrixContentURI
        do throws(VoiceNoteError) {
            uri = try MatrixContentURI(text)
        } catch {
            throw VoiceNoteError(.format, "the content URI answer (HTTP \(response.code)) names no mxc:// URI: \(error.message)")
        }
        try setReservedURI(uri.text)
        return uri
    }

    /// The PUT of `body`'s bytes: a take sent while it was recorded once it has ended (the homeserver wants the
    /// length), anything else as it is. - Throws: the take's end when it did not finish; `.cancelled` after `cancel`.
    func putBody(of body: HTTPRequestBody) throws(VoiceNoteError) -> HTTPRequestBody {
        switch body.content {
        case .source(let source):
            return HTTPRequestBody(body.form, source: source, method: "PUT")
        case .growing(let file):
            _ = try file.waitUntilComplete()
            return HTTPRequestBody(body.form, source: try file.completeSource(), method: "PUT")
        }
    }

    /// `payload` with the reserved content URI as its `asset_url` (the PUT's answer is `{}`).
    static func completed(_ payload: VoiceRecordingPayload, contentURI: MatrixContentURI) throws(VoiceNoteError) -> VoiceRecordingPayload {
        var payload = payload
        try payload.setAssetURL(contentURI.text)
        return payload
    }
}

extension MatrixContentURI {
    /// `mxc://<server>/<media id>`.
    var text: String { "mxc://" + server + "/" + mediaID }
}
