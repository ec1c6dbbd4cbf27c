import ArgumentParser
import VoiceNoteAttachments

/// How `upload` and `record --upload` send a recording: multipart (Stream) or raw (Matrix), query parameters, the
/// response's URL key and the HTTP options.
struct UploadArguments: ParsableArguments {
    @Option(name: .customLong("query"), help: ArgumentHelp("A query parameter, name=value (repeatable).", valueName: "name=value"))
    var query: [String] = []

    @Flag(help: "Send the file as the body (Matrix media upload) instead of multipart/form-data (Stream).")
    var raw = false

    @Flag(help: ArgumentHelp("Matrix's upload to a content URI created first (MSC2246): the URL is the homeserver's "
                             + "base URL; the mxc:// URI is reserved, then the bytes are put there with their length."))
    var matrix = false

    @Flag(help: ArgumentHelp("tus, the resumable-upload protocol: the URL is the server's creation URL; the upload's "
                             + "URL is the uploaded one."))
    var tus = false

    @Option(help: ArgumentHelp("The response key holding the uploaded URL (default: file, or content_uri with --raw).",
                               valueName: "key"))
    var urlKey: String?

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    /// Whether any of these was given (`record` takes them only with `--upload`).
    var isGiven: Bool { !query.isEmpty || raw || matrix || tus || urlKey != nil }

    func validate() throws {
        if [raw, matrix, tus].filter({ $0 }).count > 1 { throw ValidationError("--raw, --matrix and --tus are modes: choose one") }
        for item in query where !item.contains("=") || item.hasPrefix("=") {
            throw ValidationError("--query: \"\(item)\" is not name=value")
        }
    }

    /// The uploader's options.
    func options() throws -> UploadOptions {
        var options = UploadOptions()
        options.mode = raw ? .raw : (matrix ? .matrix : (tus ? .tus : .multipart))
        options.urlKey = urlKey
        options.http = try http.options()
        for item in query {
            let equals = item.firstIndex(of: "=") ?? item.endIndex
            try options.addQuery(name: String(item[..<equals]), value: String(item[item.index(after: equals)...]))
        }
        return options
    }
}
