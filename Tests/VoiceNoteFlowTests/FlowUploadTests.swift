import Foundation
import Testing
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNoteTestSupport

/// The flow's uploader (`FlowConfiguration.uploader`) against Tests/Servers/http_server.py: a sent take was uploaded
/// while it was recorded (the stored body is the take's file, sent chunked); a take trimmed in preview is uploaded
/// as the trimmed file when it is sent; a cancelled take's upload is cancelled and never stored.
@Suite struct FlowUploadTests {
    typealias Rig = RecordingFlowTests.Rig

    /// An uploader to the server's raw (Matrix-like) upload path, with its states collected.
    final class Sending: @unchecked Sendable {
        let uploader: Uploader
        let states = Locked<[UploadState]>([])

        init(_ server: HTTPTestServer) throws {
            var options = UploadOptions()
            options.mode = .raw
            uploader = try Uploader(endpoint: server.url("/_matrix/media/v3/upload"), options: options)
            _ = try uploader.events.subscribe({ [states] state in states.withLock { $0.append(state) } }, release: nil)
        }

        var uploaded: [VoiceRecordingPayload] {
            states.withLock { $0.compactMap { if case .uploaded(let payload) = $0 { payload } else { nil } } }
        }
        var failures: [VoiceNoteError] {
            states.withLock { $0.compactMap { if case .uploadFailed(let error) = $0 { error } else { nil } } }
        }
    }

    /// A server, an uploader to it, and a flow rig sending through that uploader; `close` ends them in order.
    struct Setup {
        let root: String
        let server: HTTPTestServer
        let sending: Sending
        let rig: Rig

        init() throws {
            root = try Fixtures.temporaryDirectory()
            server = try HTTPTestServer(root: root)
            sending = try Sending(server)
            let uploader = sending.uploader
            rig = try Rig { $0.uploader = uploader }
        }

        func close() {
            rig.close()
            sending.uploader.close()
            server.stop()
        }
    }

    /// The stored body of every upload the server completed, in order, and whether each was chunked.
    static func stored(_ server: HTTPTestServer, root: String, count: Int) -> [(bytes: [UInt8], chunked: Bool)] {
        _ = eventually(seconds: 10) { server.requests().filter { $0["upload"] != nil }.count >= count }
        return server.requests().compactMap { record in
            guard let name = record["upload"] as? String,
                  let data = FileManager.default.contents(atPath: root + "/" + name) else { return nil }
            let headers = record["headers"] as? [String: String] ?? [:]
            return (Array(data), headers["transfer-encoding"] == "chunked")
        }
    }

    @Test func aSentTakeWasUploadedWhileItWasRecorded() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (root, server, sending, rig) = (setup.root, setup.server, setup.sending, setup.rig)
        try rig.holdToRecord()
        #expect(eventually(seconds: 10) { server.isReceiving(pathPrefix: "/_matrix/media/v3/upload") }, "bytes while recording")
        try rig.flow.release()
        rig.log.wait("the attachment") { $0.ready.count == 1 }
        let take = try #require(rig.log.ready.first)
        #expect(eventually(seconds: 20) { sending.uploaded.count == 1 })
        let payload = try #require(sending.uploaded.first)
        #expect(payload.assetURL.hasPrefix("mxc://localhost/") && abs((payload.duration ?? 0) - take.duration) < 0.001)
        let bodies = Self.stored(server, root: root, count: 1)
        #expect(bodies.count == 1 && bodies.first?.chunked == true)
        #expect(bodies.first?.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: take.path))))
    }

    @Test func aTrimmedTakeIsUploadedAsTheTrimmedFile() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (root, server, sending, rig) = (setup.root, setup.server, setup.sending, setup.rig)
        try rig.recordIntoPreview()
        try rig.flow.trim(start: 0.2, end: 0.7)
        rig.log.wait("trimmed") { $0.trimmed.count == 1 && $0.states.last == .preview }
        try rig.flow.send()
        rig.log.wait("the attachment") { $0.ready.count == 1 }
        let take = try #require(rig.log.ready.first)
        #expect(eventually(seconds: 20) { sending.uploaded.contains { abs(($0.duration ?? 0) - 0.5) < 1e-6 } },
                "the trimmed file uploaded: \(sending.states.withLock { $0 })")
        let last = try #require(Self.stored(server, root: root, count: 2).last)
        #expect(last.chunked == false, "the trimmed file goes whole, with its length")
        #expect(last.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: take.path))))
        #expect(rig.log.failures.isEmpty)
    }

    @Test func aCancelledTakeCancelsItsUpload() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (root, server, sending, rig) = (setup.root, setup.server, setup.sending, setup.rig)
        try rig.holdToRecord()
        try rig.flow.move(x: 100, y: 200)  // slide left: cancel
        rig.log.wait("idle") { $0.states.last == .idle }
        #expect(eventually(seconds: 10) { sending.failures.contains { $0.status == .cancelled } },
                "\(sending.states.withLock { $0 })")
        #expect(sending.uploaded.isEmpty)
        #expect(Self.stored(server, root: root, count: 0).isEmpty)
    }
}
