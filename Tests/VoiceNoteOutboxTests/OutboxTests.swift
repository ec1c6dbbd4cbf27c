import Foundation
import Testing
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteOutbox

/// The outbox against Tests/Servers/http_server.py on 127.0.0.1: notes added, sent, failed (for a while or for
/// good), handed off until acknowledged across reopenings, and the directory it keeps refusing what it cannot trust.
/// The kill -9 and fault trials run from Python (bindings/python/tests/test_outbox*.py, bench/outbox_faults.py).
@Suite struct OutboxTests {
    /// An outbox with its events collected.
    final class Run: @unchecked Sendable {
        let outbox: Outbox
        let events = Locked<[OutboxEvent]>([])

        init(_ directory: String, _ endpoint: String, upload: UploadOptions = UploadOptions(), start: Bool = true) throws {
            var options = OutboxOptions()
            try options.setRetry(base: 0.05, cap: 0.2)
            outbox = try Outbox(directory: directory, endpoint: endpoint, upload: upload, options: options)
            _ = try outbox.events.subscribe({ [events] event in events.withLock { $0.append(event) } }, release: nil)
            if start { try outbox.start() }
        }

        /// The payloads handed off for `id`, once there are `count` (bounded wait).
        func uploaded(_ id: Int64, count: Int = 1) -> [VoiceRecordingPayload] {
            _ = eventually(seconds: 30) { self.handoffs(id).count >= count }
            return handoffs(id)
        }

        func handoffs(_ id: Int64) -> [VoiceRecordingPayload] {
            events.withLock { $0.compactMap { if case .uploaded(id, let payload) = $0 { payload } else { nil } } }
        }

        /// The first `failed` event of `id` (bounded wait).
        func failure(_ id: Int64) -> VoiceNoteError? {
            _ = eventually(seconds: 30) { self.failures(id).first != nil }
            return failures(id).first
        }

        func failures(_ id: Int64) -> [VoiceNoteError] {
            events.withLock { $0.compactMap { if case .failed(id, let error) = $0 { error } else { nil } } }
        }

        var waits: [Double] {
            events.withLock { $0.compactMap { if case .waiting(_, _, let delay) = $0 { delay } else { nil } } }
        }

        deinit { outbox.close() }
    }

    static func server() throws -> (HTTPTestServer, String) {
        let root = try Fixtures.temporaryDirectory()
        return (try HTTPTestServer(root: root), root)
    }

    @Test func aNoteIsSentHandedOffUntilAcknowledgedAndThenGone() throws {
        let (server, root) = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        let note = try Fixtures.path(.opus)
        var id: Int64 = 0
        do {
            let run = try Run(directory, server.url("/channels/messaging/general/file"))
            id = try run.outbox.add(path: note)
            let payload = try #require(run.uploaded(id).first)
            #expect(payload.assetURL.hasPrefix(server.url("/range/uploads/")))
            #expect(payload.duration ?? 0 > 0)
            let item = try #require(try run.outbox.items().first)
            #expect(item.state == .uploaded && item.id == id && item.attempts == 1 && item.uploaded == payload)
            let stored = try Data(contentsOf: URL(fileURLWithPath: root + "/uploads/1.bin"))
            #expect(stored == (try Data(contentsOf: URL(fileURLWithPath: note))))
            #expect(server.requests().contains { ($0["headers"] as? [String: Any])?["idempotency-key"] as? String == item.key })
            run.outbox.close()
        }
        // Not acknowledged: offered again at the next start, not sent again.
        let again = try Run(directory, server.url("/channels/messaging/general/file"))
        #expect(again.uploaded(id).count == 1)
        try again.outbox.acknowledge(id)
        #expect(try again.outbox.items().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/items").isEmpty)
        #expect(throws: VoiceNoteError.self) { try again.outbox.acknowledge(id) }
        #expect(UploaderRequests.count(server) == 1)
    }

    @Test func aTransientFailureWaitsWithBackoffAndThenSucceeds() throws {
        let (server, _) = try Self.server()
        defer { server.stop() }
        let run = try Run(try Fixtures.temporaryDirectory() + "/outbox", server.url("/uploadmode/failfirst-2/_matrix/media/v3/upload"),
                          upload: try Self.raw())
        let id = try run.outbox.add(path: try Fixtures.path(.opus))
        #expect(run.uploaded(id).first?.assetURL == "mxc://localhost/1")
        #expect(run.waits.count == 2)
        #expect(run.waits.allSatisfy { $0 >= 0.025 && $0 <= 0.2 })
        #expect(try run.outbox.items().first?.attempts == 3)
    }

    @Test func anItemWaitingOutABackoffIsTriedAtOnceByTheNextProcess() throws {
        let (server, _) = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        var slow = OutboxOptions()
        try slow.setRetry(base: 3600, cap: 3600)
        let endpoint = server.url("/uploadmode/failfirst-1/_matrix/media/v3/upload")
        let failing = try Outbox(directory: directory, endpoint: endpoint, upload: try Self.raw(), options: slow)
        try failing.start()
        let id = try failing.add(path: try Fixtures.path(.opus))
        #expect(eventually { (try? failing.items().first?.state) == .waiting })
        failing.close()
        let run = try Run(directory, endpoint, upload: try Self.raw())
        #expect(run.uploaded(id).count == 1, "\(run.events.withLock { $0 })")
    }

    @Test func eachWaitingItemKeepsItsOwnBackoff() throws {
        let (server, _) = try Self.server()
        defer { server.stop() }
        let clock = ManualClock()
        var upload = try Self.raw()
        upload.http.clock = clock
        var options = OutboxOptions()
        try options.setRetry(base: 10, cap: 1000)
        let outbox = try Outbox(directory: try Fixtures.temporaryDirectory() + "/outbox",
                                endpoint: server.url("/uploadmode/status-503/_matrix/media/v3/upload"), upload: upload,
                                options: options)
        defer { outbox.close() }
        let waits = Locked<[(Int64, Double)]>([])
        _ = try outbox.events.subscribe({ event in
            if case .waiting(let id, _, let delay) = event { waits.withLock { $0.append((id, delay)) } }
        }, release: nil)
        try outbox.start()
        let first = try outbox.add(path: try Fixtures.path(.opus))
        // The worker schedules its wake-up after it tells the wait: advancing before that would pass the wait's end
        // while no timer is there to end it.
        func advanceOnceWaiting(_ delay: Double) throws {
            let end = clock.now + delay
            #expect(eventually { clock.nextDeadline.map { abs($0 - end) < 1e-6 } == true }, "the worker did not begin to wait")
            try clock.advance(delay)
        }
        #expect(eventually { waits.withLock { $0.count } == 1 })
        try advanceOnceWaiting(waits.withLock { $0[0].1 })  // first's first back-off (5 … 10 s) ends: tried again
        #expect(eventually { waits.withLock { $0.count } == 2 })
        let second = try outbox.add(path: try Fixtures.path(.opus))
        #expect(eventually { waits.withLock { $0.count } == 3 })
        let (firstWait, secondWait) = waits.withLock { ($0[1].1, $0[2].1) }
        #expect(firstWait >= 10 && secondWait <= 10 && waits.withLock { $0[2].0 } == second)
        try advanceOnceWaiting(secondWait)  // second's back-off ends; first's (10 … 20 s) has not
        #expect(eventually { waits.withLock { $0.count } == 4 })
        let attempts = Dictionary(uniqueKeysWithValues: try outbox.items().map { ($0.id, $0.attempts) })
        #expect(attempts[second] == 2 && attempts[first] == 2, "\(attempts)")
    }

    @Test func anItemIsSentOnlyToTheDestinationItWasAddedFor() throws {
        let (server, _) = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        let matrix = server.url("/_matrix/media/v3/upload")
        var id: Int64 = 0
        do {
            let elsewhere = try Run(directory, server.url("/channels/messaging/general/file"), start: false)
            id = try elsewhere.outbox.add(path: try Fixtures.path(.opus))
            #expect(try elsewhere.outbox.items().first?.destination == OutboxItem.Destination(
                endpoint: server.url("/channels/messaging/general/file"), mode: .multipart))
            elsewhere.outbox.close()
        }
        do {
            let other = try Run(directory, matrix, upload: try Self.raw())
            let mine = try other.outbox.add(path: try Fixtures.path(.opus))
            #expect(other.uploaded(mine).count == 1)
            #expect(try other.outbox.items().first { $0.id == id }?.state == .queued, "left for its own destination")
            other.outbox.close()
        }
        let own = try Run(directory, server.url("/channels/messaging/general/file"))
        #expect(own.uploaded(id).count == 1)
    }

    @Test func aPermanentFailureStaysForTheHostToRetryOrCancel() throws {
        let (server, _) = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        let run = try Run(directory, server.url("/uploadmode/status-400/_matrix/media/v3/upload"), upload: try Self.raw())
        let id = try run.outbox.add(path: try Fixtures.path(.opus))
        let error = try #require(run.failure(id))
        #expect(error.httpCode == 400 && error.status == .network)
        let item = try #require(try run.outbox.items().first)
        #expect(item.state == .failed && item.lastError == error)
        try run.outbox.retry(id)
        #expect(eventually { run.failures(id).count == 2 })
        #expect(run.waits.isEmpty)
        try run.outbox.cancel(id)
        #expect(try run.outbox.items().isEmpty)
        #expect(throws: VoiceNoteError.self) { try run.outbox.retry(id) }
    }

    @Test(arguments: [408, 429, 500, 503])
    func theseAnswersAreTransient(code: Int) {
        #expect(OutboxOptions.isTransient(VoiceNoteError(.network, "HTTP \(code)", httpCode: code)))
    }

    @Test(arguments: [400, 401, 403, 404, 409, 413, 422])
    func theseAnswersArePermanent(code: Int) {
        #expect(!OutboxOptions.isTransient(VoiceNoteError(.network, "HTTP \(code)", httpCode: code)))
    }

    @Test func backoffDoublesUpToItsCapWithJitterInTheUpperHalf() throws {
        var options = OutboxOptions()
        try options.setRetry(base: 1, cap: 8)
        #expect(options.backoff(attempts: 1, random: 1) == 1)
        #expect(options.backoff(attempts: 3, random: 1) == 4)
        #expect(options.backoff(attempts: 3, random: 0) == 2)
        #expect(options.backoff(attempts: 40, random: 1) == 8)
        #expect(throws: VoiceNoteError.self) { try options.setRetry(base: 0, cap: 1) }
        #expect(throws: VoiceNoteError.self) { try options.setRetry(base: 2, cap: 1) }
        #expect(throws: VoiceNoteError.self) { try options.setRetry(base: .nan, cap: 1) }
    }

    @Test func aDamagedDatabaseIsRefusedAndLeftAsItWas() throws {
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        try garbage.write(to: URL(fileURLWithPath: directory + "/outbox.db"))
        #expect { try Outbox(directory: directory, endpoint: "http://127.0.0.1:9/") } throws: { error in
            (error as? VoiceNoteError)?.status == .format
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/outbox.db")) == garbage)
        #expect(!FileManager.default.fileExists(atPath: directory + "/outbox.db-wal"))
    }

    @Test func aSymlinkedDatabaseIsRefused() throws {
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let elsewhere = try Fixtures.temporaryDirectory() + "/other.db"
        try Data().write(to: URL(fileURLWithPath: elsewhere))
        try FileManager.default.createSymbolicLink(atPath: directory + "/outbox.db", withDestinationPath: elsewhere)
        #expect(throws: VoiceNoteError.self) { try Outbox(directory: directory, endpoint: "http://127.0.0.1:9/") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: elsewhere)).isEmpty)
    }

    @Test func oneOutboxPerDirectory() throws {
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        let first = try Outbox(directory: directory, endpoint: "http://127.0.0.1:9/")
        defer { first.close() }
        #expect { try Outbox(directory: directory, endpoint: "http://127.0.0.1:9/") } throws: { error in
            (error as? VoiceNoteError)?.status == .busy
        }
    }

    @Test func theCopyIsTheOutboxsAndAnOrphanCopyGoesAtTheNextOpen() throws {
        let directory = try Fixtures.temporaryDirectory() + "/outbox"
        let source = try Fixtures.temporaryDirectory() + "/take.ogg"
        try FileManager.default.copyItem(atPath: try Fixtures.path(.opus), toPath: source)
        let orphan = directory + "/items/" + String(repeating: "ab", count: 16)
        do {
            let run = try Run(directory, "http://127.0.0.1:9/", start: false)
            let id = try run.outbox.add(path: source)
            try FileManager.default.removeItem(atPath: source)  // the host's own file may go
            let item = try #require(try run.outbox.items().first { $0.id == id })
            #expect(item.path.hasSuffix("/take.ogg") && FileManager.default.fileExists(atPath: item.path))
            #expect(item.state == .queued)
            try FileManager.default.createDirectory(atPath: orphan, withIntermediateDirectories: false)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: orphan + "/x.ogg"))
            run.outbox.close()
        }
        let reopened = try Outbox(directory: directory, endpoint: "http://127.0.0.1:9/")
        defer { reopened.close() }
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(try reopened.items().count == 1)
        #expect { try reopened.add(path: directory + "/missing.ogg") } throws: { error in
            (error as? VoiceNoteError)?.status == .notFound
        }
        #expect { try reopened.add(path: directory + "/items") } throws: { error in
            (error as? VoiceNoteError)?.status == .invalidArgument
        }
        #expect(try reopened.items().count == 1)
    }

    @Test func closedIsMisuseAndStartTwiceIsMisuse() throws {
        let run = try Run(try Fixtures.temporaryDirectory() + "/outbox", "http://127.0.0.1:9/")
        #expect(throws: VoiceNoteError.self) { try run.outbox.start() }
        run.outbox.close()
        #expect { try run.outbox.items() } throws: { ($0 as? VoiceNoteError)?.status == .misuse }
        #expect { try run.outbox.add(path: try Fixtures.path(.opus)) } throws: { ($0 as? VoiceNoteError)?.status == .misuse }
    }

    static func raw() throws -> UploadOptions {
        var options = UploadOptions()
        options.mode = .raw
        return options
    }
}

/// The uploads a test server stored (its request log's records naming an upload, replays left out).
enum UploaderRequests {
    static func count(_ server: HTTPTestServer) -> Int {
        server.requests().filter { $0["upload"] != nil && $0["idempotent_replay"] == nil }.count
    }
}
