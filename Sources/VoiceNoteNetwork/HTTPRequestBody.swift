import VoiceNoteSources

/// What a POST sends: the bytes of a source, or of a file still being written (a take uploaded while it is
/// recorded), either as the whole body with its content type (Matrix's media upload) or as the one part of a
/// multipart/form-data body (Stream's file upload). The bytes are read on the network thread while the request is
/// sent; a source's size, when known, is announced (else the body is chunked, as a growing file's always is).
public struct HTTPRequestBody: @unchecked Sendable {
    /// How the bytes are framed.
    public enum Form: Sendable, Equatable {
        /// The bytes are the body; `Content-Type` is `contentType`.
        case raw(contentType: String)
        /// One part named `field`, with `fileName` and `contentType`, in a multipart/form-data body.
        case multipart(field: String, fileName: String, contentType: String)
    }

    /// Where the bytes come from.
    public enum Content {
        /// A source, read from its current position to its end.
        case source(ByteSource)
        /// A file being written: sent as its writer announces bytes, the body ending when it completes; the
        /// transfer waits (paused, no stall counted) while the writer has nothing new.
        case growing(GrowingFile)
    }

    /// The framing.
    public let form: Form
    /// The bytes.
    public let content: Content
    /// The request's method: "POST", or "PUT" (Matrix's upload to a content URI created first).
    public let method: String

    /// A body of `source`'s bytes framed as `form`, sent with `method` ("POST" or "PUT").
    public init(_ form: Form, source: ByteSource, method: String = "POST") {
        self.form = form
        content = .source(source)
        self.method = method
    }

    /// A body of `file`'s bytes as they are written, framed as `form`, sent with `method`.
    public init(_ form: Form, growing file: GrowingFile, method: String = "POST") {
        self.form = form
        content = .growing(file)
        self.method = method
    }

    /// The bytes still to send when known now (a source's size past its position); nil for a growing file.
    public var knownSize: Int64? {
        switch content {
        case .source(let source): source.size.map { $0 - source.position }
        case .growing: nil
        }
    }

    /// The MIME type of the bytes (the raw body's `Content-Type`, the multipart part's).
    public var mimeType: String {
        switch form {
        case .raw(let contentType): contentType
        case .multipart(_, _, let contentType): contentType
        }
    }

    /// A name for messages: the source's or the file's.
    public var name: String {
        switch content {
        case .source(let source): source.name
        case .growing(let file): file.name
        }
    }
}
