import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport
@testable import VoiceNoteAttachments

/// Uploads against Tests/Servers/http_server.py on 127.0.0.1, which parses multipart bodies for real and logs
/// each part (name, file name, MIME type, size, sha256), the query and the headers; stored uploads are compared
/// byte for byte with the local file.
@Suite struct UploaderTests {
    /// An uploader to `path` of `server` with its events collected.
    final class Run: @unchecked Sendable {
        let uploader: Uploader
        let states = Locked<[UploadState]>([])

        init(_ server: HTTPTestServer, _ path: String, options: UploadOptions = UploadOptions()) throws {
            uploader = try Uploader(endpoint: server.url(path), options: options)
            _ = try uploader.events.subscribe({ [states] state in states.withLock { $0.append(state) } }, release: nil)
        }

        /// Waits for the end (bounded) and for its event.
        func finish() -> UploadState? {
            let state = uploader.wait(timeout: 30)
            _ = eventually { states.withLock { $0.last?.isFinal == true } }
            return state
        }

        var progress: [Double] {
            states.withLock { $0.compactMap { if case .uploading(let p) = $0 { p } else { nil } } }
        }

        deinit { uploader.close() }
    }

    /// The payload to complete for a file that is not audio (no duration or waveform to read from it).
    static func placeholder() throws -> VoiceRecordingPayload { try VoiceRecordingPayload(assetURL: "file:///placeholder") }

    /// A file of random bytes (an Ogg name, so the payload's MIME type is audio/ogg), eight at a time from the system's
    /// generator: a call per byte made the 12 MB file cost 20 s of CPU under ThreadSanitizer.
    static func randomFile(_ size: Int, name: String = "note.ogg") throws -> (path: String, bytes: [UInt8]) {
        let path = try Fixtures.temporaryDirectory() + "/" + name
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { buffer in
            for offset in stride(from: 0, to: size, by: 8) {
                var word = generator.next()
                withUnsafeBytes(of: &word) { word in
                    buffer.baseAddress!.advanced(by: offset).copyMemory(from: word.baseAddress!, byteCount: min(8, size - offset))
                }
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    /// The logged requests that match, once there are `count` (the server logs a request after answering it).
    static func records(_ server: HTTPTestServer, count: Int = 1, _ matching: @escaping ([String: Any]) -> Bool) -> [[String: Any]] {
        _ = eventually(seconds: 10) { server.requests().filter(matching).count >= count }
        return server.requests().filter(matching)
    }

    static func stored(_ server: HTTPTestServer, root: String, _ record: [String: Any]) throws -> [UInt8] {
        let name = try #require(record["upload"] as? String)
        return Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + name)))
    }

    @Test func aStreamStyleMultipartUpload() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        let audio = try Fixtures.path(.opus)
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: audio)))
        var options = UploadOptions()
        try options.http.addHeader(name: "Authorization", value: "jwt-token")
        try options.http.addHeader(name: "Stream-Auth-Type", value: "jwt")
        try options.addQuery(name: "api_key", value: "key & more")
        let run = try Run(server, "/channels/messaging/general/file", options: options)
        let given = try VoiceRecordingPayload.fromRecording(path: audio, duration: 1.25, waveform: [0.5, 1])
        try run.uploader.upload(.file(FileURL.make(path: audio)), payload: given)
        guard case .uploaded(let payload) = run.finish() else { Issue.record("not uploaded: \(String(describing: run.uploader.state))"); return }
        let matched = Self.records(server) { ($0["path"] as? String)?.hasPrefix("/channels/") == true }
        let record = try #require(matched.first)
        #expect(record["path"] as? String == "/channels/messaging/general/file?api_key=key%20%26%20more")
        #expect((record["query"] as? [String: String])?["api_key"] == "key & more")
        let headers = try #require(record["headers"] as? [String: String])
        #expect(headers["authorization"] == "jwt-token")
        #expect(headers["stream-auth-type"] == "jwt")
        #expect(headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        let parts = try #require(record["parts"] as? [[String: Any]])
        #expect(parts.count == 1)
        #expect(parts.first?["name"] as? String == "file")
        #expect(parts.first?["filename"] as? String == "speech.ogg")
        #expect(parts.first?["content_type"] as? String == "audio/ogg")
        #expect(try Self.stored(server, root: root, record) == original)
        #expect(payload.assetURL == server.url("/range/" + (record["upload"] as? String ?? "")))
        #expect(payload.extraData["thumb_url"]?.string?.hasSuffix(".thumb") == true)
        #expect(payload.duration == 1.25)
        #expect(payload.waveform == [0.5, 1])
        #expect(payload.fileSize == Int64(original.count))
        #expect(payload.title == "speech.ogg")
        let progress = run.progress
        #expect(progress.first == 0)
        #expect(progress.last == 1)
        #expect(progress == progress.sorted())
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $1 - $0 >= 0.05 || $1 == 1 })
        #expect(run.states.withLock { $0.first } == .pendingUpload)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: audio))) == original)
    }

    @Test func aMatrixStyleRawUploadOfBytes() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        var options = UploadOptions()
        options.mode = .raw
        try options.http.addHeader(name: "Authorization", value: "Bearer syt_token")
        let run = try Run(server, "/_matrix/media/v3/upload", options: options)
        let ciphertext = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        try run.uploader.upload(.source(MemorySource(bytes: ciphertext), fileName: "voice message.ogg", mimeType: "application/octet-stream"))
        guard case .uploaded(let payload) = run.finish() else { Issue.record("not uploaded: \(String(describing: run.uploader.state))"); return }
        #expect(payload.assetURL.hasPrefix("mxc://localhost/"))
        #expect(payload.mimeType == "application/octet-stream")
        #expect(payload.fileSize == 300_000)
        let matched = Self.records(server) { ($0["path"] as? String)?.hasPrefix("/_matrix/") == true }
        let record = try #require(matched.first)
        #expect((record["query"] as? [String: String])?["filename"] == "voice message.ogg")
        #expect(record["content_type"] as? String == "application/octet-stream")
        #expect((record["headers"] as? [String: String])?["authorization"] == "Bearer syt_token")
        #expect(try Self.stored(server, root: root, record) == ciphertext)
        #expect(run.progress.last == 1)
    }

    @Test func httpStatusesAndBadAnswers() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        let file = try Self.randomFile(200_000)
        let cases: [(String, Status, String)] = [
            ("status-413", .tooLarge, "HTTP 413"), ("status-401", .permission, "HTTP 401"),
            ("status-403", .permission, "HTTP 403"), ("status-500", .network, "HTTP 500"),
            ("status-404", .notFound, "HTTP 404"), ("notjson", .format, "not valid JSON"), ("drop", .network, "POST"),
        ]
        for (mode, status, text) in cases {
            let run = try Run(server, "/uploadmode/\(mode)/channels/messaging/general/file")
            try run.uploader.upload(.file(file.path), payload: Self.placeholder())
            guard case .uploadFailed(let error) = run.finish() else { Issue.record("\(mode) did not fail"); continue }
            #expect(error.status == status, "\(mode): \(error)")
            #expect(error.message.contains(text), "\(mode): \(error)")
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file.path))) == file.bytes)
        }
        // The response names no URL under the key asked for.
        var options = UploadOptions()
        options.urlKey = "url"
        let run = try Run(server, "/channels/messaging/general/file", options: options)
        try run.uploader.upload(.file(file.path), payload: Self.placeholder())
        guard case .uploadFailed(let error) = run.finish() else { Issue.record("no failure"); return }
        #expect(error.status == .format)
        // A voice recording that is not audio fails before anything is sent.
        let notAudio = try Run(server, "/channels/messaging/notaudio/file")
        try notAudio.uploader.upload(.file(file.path))
        guard case .uploadFailed(let refused) = notAudio.finish() else { Issue.record("no failure"); return }
        #expect(refused.status == .format)
        #expect(server.requests(to: "/channels/messaging/notaudio/file").isEmpty)
    }

    /// libcurl hands the body to the kernel as fast as the socket's buffer takes it; a server reading slowly keeps it
    /// there far longer than the stall timeout while acknowledging it bit by bit: moving, not stalled (found by the
    /// upload-live bench: a 600 s note through a 256 kbit/s uplink failed after 30 s).
    @Test func aBodyDrainingSlowlyFromTheSendQueueIsNotAStall() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        var options = UploadOptions()
        options.mode = .raw
        try options.http.setStallTimeout(1)
        let (path, bytes) = try Self.randomFile(250_000, name: "memo.bin")
        let run = try Run(server, "/uploadmode/slowread-125000/_matrix/media/v3/upload", options: options)
        try run.uploader.upload(.file(path), payload: try Self.placeholder())
        let state = run.finish()
        guard case .uploaded? = state else {
            Issue.record("a slowly drained body is not a stall: \(String(describing: state))")
            return
        }
        let record = try #require(Self.records(server) { $0["upload"] != nil }.first)
        #expect(try Self.stored(server, root: root, record) == bytes)
    }

    @Test func cancelHalfWayAgainstASlowServer() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        // Larger than loopback's socket buffers (some MB), so the server's 100 kB/s pace is what the client sees.
        let file = try Self.randomFile(12 << 20, name: "long.ogg")
        let path = "/uploadmode/slowread-100000/channels/messaging/general/file"
        let run = try Run(server, path)
        try run.uploader.upload(.file(file.path), payload: Self.placeholder())
        #expect(eventually(seconds: 20) { server.isReceiving(path) })  // being sent, whatever the socket buffers
        let started = monotonicNanoseconds()
        run.uploader.cancel()
        guard case .uploadFailed(let error) = run.finish() else { Issue.record("not cancelled"); return }
        #expect(error.status == .cancelled)
        #expect(monotonicNanoseconds() - started < 2_000_000_000)
        #expect((run.progress.last ?? 1) < 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data(file.bytes))  // whole buffers, not 12 M elements
        #expect(throws: VoiceNoteError.self) { try run.uploader.upload(.file(file.path + ".missing")) }
    }

    @Test func retryAfterAFailureSucceeds() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        let file = try Self.randomFile(100_000)
        let run = try Run(server, "/uploadmode/failfirst-1/channels/messaging/general/file")
        #expect(throws: VoiceNoteError(.misuse, "retry needs a failed upload")) { try run.uploader.retry() }
        try run.uploader.upload(.file(file.path), payload: Self.placeholder())
        guard case .uploadFailed(let error) = run.finish() else { Issue.record("no failure"); return }
        #expect(error.status == .network)
        try run.uploader.retry()
        guard case .uploaded(let payload) = run.finish() else { Issue.record("retry did not upload"); return }
        #expect(payload.assetURL.contains("/range/uploads/"))
        let uploads = Self.records(server) { $0["upload"] != nil }
        #expect(uploads.count == 1)
        #expect(try Self.stored(server, root: root, try #require(uploads.first)) == file.bytes)
        // A source is sent again from where it started.
        let sourceRun = try Run(server, "/uploadmode/failfirst-1/_matrix/media/v3/upload", options: { var o = UploadOptions(); o.mode = .raw; return o }())
        try sourceRun.uploader.upload(.source(MemorySource(bytes: file.bytes), fileName: "a.ogg", mimeType: nil))
        guard case .uploadFailed = sourceRun.finish() else { Issue.record("no failure"); return }
        try sourceRun.uploader.retry()
        guard case .uploaded = sourceRun.finish() else { Issue.record("retry did not upload"); return }
        let raw = Self.records(server) { ($0["path"] as? String)?.hasPrefix("/uploadmode/failfirst-1/_matrix") == true && $0["upload"] != nil }
        #expect(try Self.stored(server, root: root, try #require(raw.first)) == file.bytes)
    }

    @Test func localChecksComeFirst() throws {
        let server = try HTTPTestServer(root: try Fixtures.temporaryDirectory())
        let file = try Self.randomFile(1000)
        let run = try Run(server, "/channels/messaging/general/file")
        func status(_ item: UploadItem) -> Status? {
            do {
                try run.uploader.upload(item)
                return nil
            } catch { return error.status }
        }
        try FileManager.default.removeItem(atPath: file.path)
        #expect(status(.file(file.path)) == .notFound)
        #expect(status(.file("https://example.com/a.ogg")) == .invalidArgument)
        #expect(status(.file(Fixtures.directory)) == .invalidArgument)
        var small = UploadOptions()
        small.maximumBytes = 10
        let limited = try Run(server, "/channels/messaging/general/file", options: small)
        #expect(throws: VoiceNoteError.self) { try limited.uploader.upload(.source(MemorySource(bytes: Array(repeating: 1, count: 11)), fileName: "a.ogg", mimeType: nil)) }
        #expect(server.requests().isEmpty)
        #expect(throws: VoiceNoteError.self) { try Uploader(endpoint: "ftp://example.com/x") }
    }

    @Test func thePostProcessorRewritesThePayloadOnTheUploadThread() throws {
        let server = try HTTPTestServer(root: try Fixtures.temporaryDirectory())
        let file = try Self.randomFile(1000)
        let run = try Run(server, "/channels/messaging/general/file")
        let threadName = Locked("")
        run.uploader.setPostProcessor { (payload) throws(VoiceNoteError) in
            threadName.withLock { $0 = currentThreadName() }
            var rewritten = payload
            try rewritten.setAssetURL(payload.assetURL.replacingOccurrences(of: "http://", with: "https://cdn."))
            return rewritten
        }
        try run.uploader.upload(.file(file.path), payload: Self.placeholder())
        guard case .uploaded(let payload) = run.finish() else { Issue.record("not uploaded"); return }
        #expect(payload.assetURL.hasPrefix("https://cdn.127.0.0.1:"))
        #expect(threadName.withLock { $0 } == "vn-upload")
        // A hook that throws fails the upload with its error.
        run.uploader.setPostProcessor { (_) throws(VoiceNoteError) in throw VoiceNoteError(.busy, "no") }
        try run.uploader.upload(.file(file.path), payload: Self.placeholder())
        guard case .uploadFailed(let error) = run.finish() else { Issue.record("no failure"); return }
        #expect(error == VoiceNoteError(.busy, "no"))
    }
}
