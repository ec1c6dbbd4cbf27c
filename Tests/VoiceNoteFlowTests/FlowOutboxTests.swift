import Foundation
import Testing
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNoteOutbox
import VoiceNoteTestSupport

/// The flow's outbox (`FlowConfiguration.outbox`) against Tests/Servers/http_server.py: a sent take is in the outbox
/// (durable) and the outbox sends it; with the flow's uploader too, a take streamed while it was recorded is held and
/// then handed off with the streamed upload's payload (stored once), or sent by the outbox when that upload failed.
@Suite struct FlowOutboxTests {
    typealias Rig = RecordingFlowTests.Rig
    typealias Sending = FlowUploadTests.Sending

    /// An outbox to the server's raw upload path, started, with its events collected.
    final class Box: @unchecked Sendable {
        let outbox: Outbox
        let events = Locked<[OutboxEvent]>([])

        init(_ server: HTTPTestServer) throws {
            var options = UploadOptions()
            options.mode = .raw
            outbox = try Outbox(directory: try Fixtures.temporaryDirectory() + "/outbox",
                                endpoint: server.url("/_matrix/media/v3/upload"), upload: options)
            _ = try outbox.events.subscribe({ [events] event in events.withLock { $0.append(event) } }, release: nil)
            try outbox.start()
        }

        var handoffs: [VoiceRecordingPayload] {
            events.withLock { $0.compactMap { if case .uploaded(_, let payload) = $0 { payload } else { nil } } }
        }
    }

    static func uploads(_ server: HTTPTestServer) -> [[String: Any]] { server.requests().filter { $0["upload"] != nil } }

    /// Holds the button until `path` receives the take's bytes, releases (the take is sent), and waits for the
    /// outbox's hand-off; returns the sent take.
    static func streamAndSend(_ rig: Rig, _ server: HTTPTestServer, _ box: Box, receiving path: String) throws -> FlowTake {
        try rig.holdToRecord()
        #expect(eventually(seconds: 10) { server.isReceiving(pathPrefix: path) }, "bytes while recording")
        try rig.flow.release()
        rig.log.wait("the attachment") { $0.ready.count == 1 }
        #expect(eventually(seconds: 20) { box.handoffs.count == 1 }, "\(box.events.withLock { $0 })")
        return try #require(rig.log.ready.first)
    }

    @Test func aSentTakeGoesIntoTheOutboxWhichSendsIt() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        let box = try Box(server)
        defer { box.outbox.close() }
        let outbox = box.outbox
        let rig = try Rig { $0.outbox = outbox }
        defer { rig.close() }
        try rig.recordIntoPreview()
        try rig.flow.send()
        rig.log.wait("the attachment") { $0.ready.count == 1 }
        let take = try #require(rig.log.ready.first)
        #expect(eventually(seconds: 20) { box.handoffs.count == 1 }, "\(box.events.withLock { $0 })")
        #expect(box.handoffs.first?.assetURL.hasPrefix("mxc://localhost/") == true)
        #expect(abs((box.handoffs.first?.duration ?? 0) - take.duration) < 0.001)
        let item = try #require(try outbox.items().first)
        #expect(item.state == .uploaded)
        #expect(try Data(contentsOf: URL(fileURLWithPath: item.path)) == Data(contentsOf: URL(fileURLWithPath: take.path)))
    }

    @Test func aStreamedTakeIsHeldThenHandedOffWithTheStreamedPayload() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        let sending = try Sending(server)
        let box = try Box(server)
        defer { box.outbox.close(); sending.uploader.close() }
        let (uploader, outbox) = (sending.uploader, box.outbox)
        let rig = try Rig {
            $0.uploader = uploader
            $0.outbox = outbox
        }
        defer { rig.close() }
        _ = try Self.streamAndSend(rig, server, box, receiving: "/_matrix/media/v3/upload")
        #expect(eventually(seconds: 20) { sending.uploaded.count == 1 })
        #expect(box.handoffs.first == sending.uploaded.first, "the outbox hands off the streamed upload's payload")
        #expect(Self.uploads(server).count == 1, "stored once: the outbox did not send it again")
        #expect(try outbox.items().first?.attempts == 0)
    }

    @Test func aStreamedTakeWhoseUploadFailedIsSentByTheOutbox() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        var failing = UploadOptions()
        failing.mode = .raw
        let uploader = try Uploader(endpoint: server.url("/uploadmode/status-500/_matrix/media/v3/upload"), options: failing)
        let box = try Box(server)
        defer { box.outbox.close(); uploader.close() }
        let outbox = box.outbox
        let rig = try Rig {
            $0.uploader = uploader
            $0.outbox = outbox
        }
        defer { rig.close() }
        let take = try Self.streamAndSend(rig, server, box, receiving: "/uploadmode/")
        #expect(try outbox.items().first?.attempts == 1, "the outbox sent the file itself")
        let stored = Self.uploads(server).filter { ($0["path"] as? String)?.hasPrefix("/_matrix/") == true }
        #expect(stored.count == 1)
        let name = try #require(stored.first?["upload"] as? String)
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/" + name)) == Data(contentsOf: URL(fileURLWithPath: take.path)))
    }
}
