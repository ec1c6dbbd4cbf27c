import VoiceNoteSources

/// What a POST sends: the bytes of a source, either as the whole body with its content type (Matrix's media
/// upload) or as the one part of a multipart/form-data body (Stream's file upload). The source is read on the
/// network thread while the request is sent; its size, when known, is announced (else the body is chunked).
public struct HTTPRequestBody: @unchecked Sendable {
    /// How the bytes are framed.
    public enum Form: Sendable, Equatable {
        /// The bytes are the body; `Content-Type` is `contentType`.
        case raw(contentType: String)
        /// One part named `field`, with `fileName` and `contentType`, in a multipart/form-data body.
        case multipart(field: String, fileName: String, contentType: String)
    }

    /// The framing.
    public let form: Form
    /// The bytes, read from its current position.
    public let source: ByteSource

    /// A body of `source`'s bytes framed as `form`.
    public init(_ form: Form, source: ByteSource) {
        self.form = form
        self.source = source
    }
}
