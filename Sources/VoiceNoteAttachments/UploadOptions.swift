import VoiceNoteCore
import VoiceNoteNetwork

/// How uploads are sent: Stream's multipart file upload, or Matrix's raw media upload.
public enum UploadMode: String, Sendable, CaseIterable {
    /// `POST <endpoint>`, multipart/form-data with one part named `file` (the file name and its MIME type); the
    /// response's `file` is the URL (Stream `POST /channels/{type}/{id}/file`).
    case multipart
    /// `POST <endpoint>?filename=<name>`, the body is the file with its `Content-Type`; the response's
    /// `content_uri` is the URL (Matrix `/_matrix/media/v3/upload`, an `mxc://` URI).
    case raw
    /// Matrix's upload to a content URI created first (MSC2246, in the spec since v1.7): the endpoint is the
    /// homeserver's base URL; `POST <endpoint>/_matrix/media/v1/create` reserves the `mxc://` URI at once (the
    /// message can be built before the bytes are sent), then `PUT <endpoint>/_matrix/media/v3/upload/{server}/{id}
    /// ?filename=<name>` sends the file with its `Content-Type` and length (Synapse wants the length: a take sent so
    /// goes when it ends).
    case matrix
    /// tus, the open resumable-upload protocol (1.0.0 with its creation, creation-defer-length and termination
    /// extensions): the endpoint is the server's creation URL; `POST` with `Upload-Length` (or, for a take sent
    /// while it is recorded, `Upload-Defer-Length: 1`) and `Upload-Metadata` (`filename`, `filetype`) creates the
    /// upload, then `PATCH`es at offsets send the bytes (a take's as its pages are written, the last one with its
    /// `Upload-Length`); a failed PATCH resumes where `HEAD` says the server is; a cancel `DELETE`s it. The upload's
    /// URL (`Location`) is the uploaded URL.
    case tus
}

/// How an `Uploader` sends: the HTTP options (headers such as Stream's `api_key`,
/// `Authorization` and `Stream-Auth-Type`, a CA file, timeouts), query parameters, the mode, the response key that
/// holds the URL, the attachment type and the size limit.
public struct UploadOptions: Sendable, Equatable {
    /// One query parameter.
    public struct QueryItem: Sendable, Equatable {
        public var name: String
        public var value: String

        /// A parameter; both parts are percent-encoded when the URL is made.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Headers, CA file and timeouts.
    public var http = HTTPOptions()
    /// Query parameters added to the endpoint, in order.
    public var query: [QueryItem] = []
    /// Multipart (Stream), raw (Matrix), Matrix's create-then-upload, or tus.
    public var mode = UploadMode.multipart
    /// The response key holding the uploaded file's URL; nil for the mode's (`file`, or `content_uri`).
    public var urlKey: String?
    /// The attachment type uploaded (one of `AttachmentType.uploadable`).
    public var type = AttachmentType.voiceRecording
    /// The largest file sent, in bytes.
    public var maximumBytes = LocalAttachment.defaultMaximumBytes

    /// The defaults: multipart, the mode's response key, voiceRecording, 100 MiB, default HTTP options.
    public init() {}

    /// Adds a query parameter. - Throws: `.invalidArgument` for an empty name.
    public mutating func addQuery(name: String, value: String) throws(VoiceNoteError) {
        guard !name.isEmpty else { throw VoiceNoteError(.invalidArgument, "a query parameter needs a name") }
        query.append(QueryItem(name: name, value: value))
    }

    /// The key whose value in the response is the uploaded URL.
    public var responseURLKey: String { urlKey ?? (mode == .multipart ? "file" : "content_uri") }

    /// Matrix mode: the URL that creates a content URI on the homeserver at `endpoint`.
    public func createURL(endpoint: String) -> String { Self.base(endpoint) + "/_matrix/media/v1/create" }

    /// Matrix mode: the URL the bytes of `contentURI` (`mxc://server/id`) named `fileName` are put to.
    func putURL(endpoint: String, contentURI: MatrixContentURI, fileName: String) -> String {
        let path = "/_matrix/media/v3/upload/" + PercentEncoding.encode(contentURI.server) + "/" + PercentEncoding.encode(contentURI.mediaID)
        return requestURL(endpoint: Self.base(endpoint) + path, fileName: fileName)
    }

    /// A homeserver's base URL without a trailing slash.
    private static func base(_ endpoint: String) -> String {
        var base = Substring(endpoint)
        while base.hasSuffix("/") { base = base.dropLast() }
        return String(base)
    }

    /// The URL to post to for a file named `fileName`: `endpoint` with the query parameters (raw mode adds
    /// `filename`), after any the endpoint has.
    public func requestURL(endpoint: String, fileName: String) -> String {
        var items = query
        if mode == .raw || mode == .matrix { items.append(QueryItem(name: "filename", value: fileName)) }
        guard !items.isEmpty else { return endpoint }
        let fragment = endpoint.firstIndex(of: "#") ?? endpoint.endIndex
        let base = endpoint[..<fragment]
        let encoded = items.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }.joined(separator: "&")
        return base + (base.contains("?") ? "&" : "?") + encoded
    }
}
