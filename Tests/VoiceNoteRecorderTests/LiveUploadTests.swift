import Foundation
import Testing
import VoiceNoteAttachments
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder

/// A take uploaded while it is recorded (`Recorder.streamTake` → `Uploader.upload(.live(…))`) to
/// Tests/Servers/http_server.py on 127.0.0.1: raw (Matrix-like) and multipart (Stream-like) bodies, chunked, the
/// stored bytes compared with the finished file; the first bytes reach the server while the take still records
/// (a real-time microphone: PulseAudio with a null sink); a cancelled take never completes on the server.
@Suite(.serialized) struct LiveUploadTests {
    /// An uploader to `path` of `server` (raw or multipart) with its states collected.
    final class Upload: @unchecked Sendable {
        let uploader: Uploader
        let states = Locked<[UploadState]>([])

        init(_ server: HTTPTestServer, _ path: String, mode: UploadMode) throws {
            var options = UploadOptions()
            options.mode = mode
            uploader = try Uploader(endpoint: server.url(path), options: options)
            _ = try uploader.events.subscribe({ [states] state in states.withLock { $0.append(state) } }, release: nil)
        }

        /// The final state, waiting (bounded) for it and its event.
        func finish() -> UploadState? {
            let state = uploader.wait(timeout: 30)
            _ = eventually { states.withLock { $0.last?.isFinal == true } }
            return state
        }

        deinit { uploader.close() }
    }

    /// A warmed PulseAudio server with speech playing into its sink: a real-time microphone.
    static func microphone() throws -> PulseServer {
        let pulse = try PulseServer()
        do {
            try pulse.warm()
            _ = try pulse.play(try Fixtures.path(.wav))
        } catch {
            pulse.stop()
            throw error
        }
        return pulse
    }

    /// The ALSA device that hears `pulse`'s sink.
    static func device(_ pulse: PulseServer) -> DeviceSelection {
        DeviceSelection(name: "vn_rt", configuration: pulse.alsaConfiguration(pcmName: "vn_rt"))
    }

    /// The logged requests whose path starts with `prefix`, once there are `count` (logged after the answer).
    static func records(_ server: HTTPTestServer, _ prefix: String, count: Int = 1) -> [[String: Any]] {
        _ = eventually(seconds: 10) { server.requests().filter { ($0["path"] as? String)?.hasPrefix(prefix) == true }.count >= count }
        return server.requests().filter { ($0["path"] as? String)?.hasPrefix(prefix) == true }
    }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A take from the (unpaced) file microphone streamed from its first byte, attached before capture starts:
    /// the server stores exactly the finished file, sent chunked, and the payload is the finished take's.
    @Test(arguments: [UploadMode.raw, .multipart])
    func aTakeSentFromItsFirstByteArrivesWhole(mode: UploadMode) throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        let path = mode == .raw ? "/_matrix/media/v3/upload" : "/channels/messaging/general/file"
        let upload = try Upload(server, path, mode: mode)
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 3))
        defer { recorder.close() }
        let log = try EventLog(recorder)
        var attached: VoiceNoteError?
        try recorder.begin(in: directory + "/takes") { _ in
            do throws(VoiceNoteError) {
                let take = try recorder.streamTake()
                try upload.uploader.upload(UploadItem.live(take))
            } catch {
                attached = error
            }
        }
        #expect(attached == nil)
        let result = try #require(log.finished())
        guard case .uploaded(let payload) = upload.finish() else {
            Issue.record("not uploaded: \(String(describing: upload.uploader.state))")
            return
        }
        #expect(payload.duration == result.duration)
        #expect(payload.waveform?.count == 100)
        #expect(payload.fileSize == result.size)
        #expect(payload.mimeType == "audio/ogg")
        #expect(payload.title == (result.path as NSString).lastPathComponent)
        let record = try #require(Self.records(server, path).first)
        let headers = record["headers"] as? [String: String] ?? [:]
        #expect(headers["transfer-encoding"] == "chunked", "\(headers)")
        #expect(headers["content-length"] == nil)
        let stored = try #require(record["upload"] as? String)
        #expect(try Self.bytes(root + "/" + stored) == Self.bytes(result.path))
        if mode == .raw {
            #expect(payload.assetURL.hasPrefix("mxc://localhost/"))
        } else {
            let parts = record["parts"] as? [[String: Any]] ?? []
            #expect(parts.first?["filename"] as? String == (result.path as NSString).lastPathComponent)
            #expect(parts.first?["content_type"] as? String == "audio/ogg")
        }
        #expect(status(of: { try upload.uploader.retry() }) == .misuse)  // it succeeded
    }

    /// A real-time take: its first pages reach the server while it still records; at the stop only its last pages
    /// remain, and the stored body is the finished file.
    @Test func theFirstPagesArriveWhileTheTakeRecords() throws {
        let pulse = try Self.microphone()
        defer { pulse.stop() }
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        let path = "/_matrix/media/v3/upload"
        let upload = try Upload(server, path, mode: .raw)
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: Self.device(pulse)))
        defer { recorder.close() }
        let log = try EventLog(recorder)
        try recorder.begin()
        let live = try recorder.streamTake()
        try upload.uploader.upload(UploadItem.live(live))
        #expect(status(of: { _ = try recorder.streamTake() }) == .busy)
        // Pages are written every 0.5 s or so: the server reads body bytes while the take goes on.
        #expect(eventually(seconds: 10) { server.isReceiving(pathPrefix: path) })
        #expect(recorder.context.state == .recording)
        let duringTake = recorder.context.duration
        #expect(eventually { recorder.context.duration >= duringTake + 1.5 })
        let sentBeforeStop = live.file.bytesRead
        try recorder.stop()
        let result = try #require(log.finished())
        // About a second of pages (32 kbit/s: some 4 kB) is what the stop leaves to send, whatever the length.
        #expect(sentBeforeStop > 0 && result.size - sentBeforeStop < 16_000, "\(sentBeforeStop) of \(result.size) sent before the stop")
        guard case .uploaded(let payload) = upload.finish() else {
            Issue.record("not uploaded: \(String(describing: upload.uploader.state))")
            return
        }
        #expect(payload.duration == result.duration)
        let record = try #require(Self.records(server, path).first)
        let stored = try #require(record["upload"] as? String)
        #expect(try Self.bytes(root + "/" + stored) == Self.bytes(result.path))
    }

    /// A cancelled take: the upload fails `.cancelled`, and the server never completes the body (nothing stored).
    @Test func aCancelledTakeNeverCompletesOnTheServer() throws {
        let pulse = try Self.microphone()
        defer { pulse.stop() }
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        let path = "/channels/messaging/general/file"
        let upload = try Upload(server, path, mode: .multipart)
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: Self.device(pulse)))
        defer { recorder.close() }
        try recorder.begin()
        try upload.uploader.upload(UploadItem.live(recorder.streamTake()))
        #expect(eventually(seconds: 10) { server.isReceiving(pathPrefix: path) })
        try recorder.cancel()
        guard case .uploadFailed(let error) = upload.finish() else {
            Issue.record("not failed: \(String(describing: upload.uploader.state))")
            return
        }
        #expect(error.status == .cancelled, "\(error.message)")
        let record = try #require(Self.records(server, path).first)
        #expect(record["upload"] == nil, "stored: \(record)")
        #expect(status(of: { try upload.uploader.retry() }) == .unsupported)
    }

    /// A take whose disk filled up is repaired (its last page rewritten): what was sent is not the file, so the
    /// upload fails with `.io` and the server stores nothing; the repaired file is the recorder's finished take.
    @Test(.enabled(if: getuid() == 0, "mounting a 64 KiB tmpfs needs root (CI runs as root)"))
    func aTakeRepairedAfterAFullDiskFailsItsUpload() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        let path = "/_matrix/media/v3/upload"
        let upload = try Upload(server, path, mode: .raw)
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let small = directory + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try Fixtures.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small])
        defer { _ = try? Fixtures.run(["umount", "-l", small]) }
        let long = directory + "/long.raw"
        try Fixtures.run(["sox", "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1", "-r", "48000", input.path,
                          "-t", "raw", long, "repeat", "12"])
        let recorder = try Recorder(configuration: configuration(directory: small, device: fileMicrophone(infile: long), maximum: 60))
        defer { recorder.close() }
        let log = try EventLog(recorder)
        try recorder.begin(in: small) { _ in
            _ = try? upload.uploader.upload(UploadItem.live(recorder.streamTake()))
        }
        #expect(log.wait { _ in log.stopped })
        #expect(log.failures.map(\.status) == [.noSpace])
        _ = try #require(log.finished(seconds: 1))
        guard case .uploadFailed(let error) = upload.finish() else {
            Issue.record("not failed: \(String(describing: upload.uploader.state))")
            return
        }
        #expect(error.status == .io, "\(error.message)")
        #expect(Self.records(server, path).allSatisfy { $0["upload"] == nil })
    }

    /// Hurried: the upload cancelled, the take stopped and cancelled from three threads at once, ten times over one
    /// uploader and recorder: every upload ends exactly once (uploaded or failed), nothing hangs, and the next take's
    /// upload starts (the TSan suite runs this too).
    @Test func cancelStopAndCancelRacingEndEachUploadOnce() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        defer { server.stop() }
        let upload = try Upload(server, "/_matrix/media/v3/upload", mode: .raw)
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 5))
        defer { recorder.close() }
        for round in 0..<10 {
            let finals = upload.states.withLock { $0.filter(\.isFinal).count }
            try recorder.begin(in: directory + "/takes") { _ in
                _ = try? upload.uploader.upload(UploadItem.live(recorder.streamTake()))
            }
            DispatchQueue.concurrentPerform(iterations: 3) { lane in
                switch lane {
                case 0: upload.uploader.cancel()
                case 1: try? recorder.stop()
                default: try? recorder.cancel()
                }
            }
            #expect(eventually { recorder.context.state == .stopped }, "round \(round): the take ended")
            #expect(upload.uploader.wait(timeout: 20)?.isFinal == true, "round \(round): the upload ended")
            #expect(eventually { upload.states.withLock { $0.filter(\.isFinal).count } == finals + 1 },
                    "round \(round): one final state")
        }
    }

    /// Nothing to stream while no take runs.
    @Test func streamingWithoutATakeIsMisuse() throws {
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: "/dev/null")))
        defer { recorder.close() }
        #expect(status(of: { _ = try recorder.streamTake() }) == .misuse)
    }
}
