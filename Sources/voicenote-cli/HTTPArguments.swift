import ArgumentParser
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNotePlayer
import VoiceNoteSources

/// The options of `play`, `info` and `waveform` for an http(s) URL: request headers, a CA file and the timeouts.
/// With a file path they are unused (only their syntax is checked).
struct HTTPArguments: ParsableArguments {
    @Option(name: .customLong("header"), help: ArgumentHelp(
        "A request header for a URL, \"Name: value\" (repeatable).", valueName: "name: value"))
    var headers: [String] = []

    @Option(help: ArgumentHelp("PEM file of the CA certificates to trust for a URL instead of the system's.",
                               valueName: "path"))
    var caFile: String?

    @Option(help: ArgumentHelp("Seconds allowed for connecting to a URL's server, \(Self.connectRange) (default 15).",
                               valueName: "seconds"))
    var connectTimeout: Double?

    @Option(help: ArgumentHelp("Seconds without a byte from a URL's server before giving up, \(Self.stallRange) (default 30).",
                               valueName: "seconds"))
    var stallTimeout: Double?

    @Option(help: ArgumentHelp("Seconds one transfer may take in all, \(Self.transferRange) (default 600).",
                               valueName: "seconds"))
    var transferTimeout: Double?

    @Option(help: ArgumentHelp("The largest download taken, in bytes, 1…2^40 (default 104857600).",
                               valueName: "bytes"))
    var maxBytes: Int64?

    /// The ranges `HTTPOptions` takes, as help and messages show them.
    static let connectRange = text(HTTPOptions.connectTimeoutRange)
    static let stallRange = text(HTTPOptions.stallTimeoutRange)
    static let transferRange = text(HTTPOptions.transferTimeoutRange)

    private static func text(_ range: ClosedRange<Double>) -> String {
        "\(range.lowerBound)…\(Int(range.upperBound))"
    }

    func validate() throws {
        for header in headers {
            // The library's rules (a colon, a token for a name, no line break); its messages never repeat a line
            // without a colon (it may be a token given without its header name).
            var probe = HTTPOptions()
            do throws(VoiceNoteError) {
                try probe.addHeader(line: header)
            } catch {
                throw ValidationError("--header: \(error.message)")
            }
        }
        // NaN fails every comparison, so each check is written to refuse it.
        if let connectTimeout, !HTTPOptions.connectTimeoutRange.contains(connectTimeout) {
            throw ValidationError("--connect-timeout must be \(Self.connectRange) seconds")
        }
        if let stallTimeout, !HTTPOptions.stallTimeoutRange.contains(stallTimeout) {
            throw ValidationError("--stall-timeout must be \(Self.stallRange) seconds")
        }
        if let transferTimeout, !HTTPOptions.transferTimeoutRange.contains(transferTimeout) {
            throw ValidationError("--transfer-timeout must be \(Self.transferRange) seconds")
        }
        if let maxBytes, !HTTPOptions.maximumBytesRange.contains(maxBytes) {
            throw ValidationError("--max-bytes must be 1…\(HTTPOptions.maximumBytesRange.upperBound)")
        }
    }

    /// The options as the library takes them.
    /// - Throws: `.invalidArgument` for a header name or value HTTP does not allow, `.notFound` for a missing CA
    ///   file.
    func options() throws(VoiceNoteError) -> HTTPOptions {
        var options = HTTPOptions()
        for header in headers { try options.addHeader(line: header) }
        try options.setCAFile(caFile)
        if let connectTimeout { try options.setConnectTimeout(connectTimeout) }
        if let stallTimeout { try options.setStallTimeout(stallTimeout) }
        if let transferTimeout { try options.setTransferTimeout(transferTimeout) }
        if let maxBytes { try options.setMaximumBytes(maxBytes) }
        return options
    }
}

/// The bytes of `location` for `info` and `waveform`: an http(s) URL through the media cache (`RemoteMedia`, its name
/// without the query or credentials), or a local file. The one place a CLI argument's location becomes a source.
func openAudio(_ location: Location, http: HTTPArguments) throws(VoiceNoteError) -> any ByteSource {
    try RemoteMedia.open(location, options: http.options)
}

/// What `play` loads for `text` (parsed once): an http(s) URL with the options (made only for a URL: a file plays
/// whatever the HTTP arguments name), or a local file.
func playerLocation(_ text: String, http: HTTPArguments) throws(VoiceNoteError) -> PlayerLocation {
    let location = PlayerLocation(parsing: text)
    guard let url = location.remote?.url else { return location }
    return .location(.remote(url: url), options: try http.options())
}
