import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport
@testable import VoiceNoteAttachments

/// Uploads under a hurried host: a cancel racing the start, start/cancel/retry from several threads, a cancel
/// while the post-processor runs, a file that shrinks while it is sent. An upload ends in a final state exactly
/// once, and no event follows it.
@Suite struct UploaderRaceTests {
    typealias Run = UploaderTests.Run

    /// Each upload's states from its `pendingUpload`: a final state ends it, and only a new upload follows.
    static func checkEachUploadEndsOnce(_ states: [UploadState]) {
        var ended = true
        for state in states {
            if state == .pendingUpload {
                #expect(ended, "a new upload began before the last one ended: \(states)")
                ended = false
            } else {
                #expect(!ended, "\(state) after the upload had ended")
                if state.isFinal { ended = true }
            }
        }
    }

    @Test func aCancelRacingTheStartEndsTheUploadOnceAndForAll() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        let run = try Run(server, "/channels/messaging/race/file")
        let bytes = [UInt8](repeating: 7, count: 200_000)
        var generator = SystemRandomNumberGenerator()
        for attempt in 0..<250 {
            try run.uploader.upload(.source(MemorySource(bytes: bytes), fileName: "a.bin", mimeType: nil), payload: UploaderTests.placeholder())
            usleep(UInt32.random(in: 0...2000, using: &generator))
            run.uploader.cancel()
            guard let state = run.uploader.wait(timeout: 5), state.isFinal else {
                Issue.record("attempt \(attempt): \(String(describing: run.uploader.state)) 5 s after cancel")
                return
            }
        }
        #expect(eventually(seconds: 10) { run.states.withLock { $0.last?.isFinal == true } })
        Self.checkEachUploadEndsOnce(run.states.withLock { $0 })
        try run.uploader.upload(.source(MemorySource(bytes: bytes), fileName: "b.bin", mimeType: nil), payload: UploaderTests.placeholder())
        guard case .uploaded = run.finish() else { Issue.record("the uploader was stuck: \(String(describing: run.uploader.state))"); return }
    }

    @Test func startCancelAndRetryFromSixThreads() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        let run = try Run(server, "/channels/messaging/hammer/file")
        let bytes = [UInt8](repeating: 9, count: 100_000)
        let uploader = run.uploader
        let done = Locked(0)
        for index in 0..<6 {
            Thread {
                defer { done.withLock { $0 += 1 } }
                var generator = SystemRandomNumberGenerator()
                for _ in 0..<150 {
                    switch UInt8.random(in: 0...2, using: &generator) {
                    case 0: try? uploader.upload(.source(MemorySource(bytes: bytes), fileName: "h\(index).bin", mimeType: nil),
                                                 payload: try? UploaderTests.placeholder())
                    case 1: uploader.cancel()
                    default: try? uploader.retry()
                    }
                    usleep(UInt32.random(in: 0...1000, using: &generator))
                }
            }.start()
        }
        #expect(eventually(seconds: 60) { done.withLock { $0 } == 6 })
        uploader.cancel()
        #expect(uploader.wait(timeout: 10)?.isFinal == true)
        #expect(eventually(seconds: 10) { run.states.withLock { $0.last?.isFinal == true } })
        Self.checkEachUploadEndsOnce(run.states.withLock { $0 })
        try uploader.upload(.source(MemorySource(bytes: bytes), fileName: "last.bin", mimeType: nil), payload: UploaderTests.placeholder())
        guard case .uploaded = run.finish() else { Issue.record("the uploader was stuck: \(String(describing: uploader.state))"); return }
    }

    @Test func aCancelWhileThePostProcessorRunsEndsCancelled() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        let run = try Run(server, "/channels/messaging/general/file")
        let entered = Locked(false)
        let release = Locked(false)
        run.uploader.setPostProcessor { payload in
            entered.withLock { $0 = true }
            _ = eventually(seconds: 20) { release.withLock { $0 } }
            return payload
        }
        try run.uploader.upload(.source(MemorySource(bytes: [1, 2, 3]), fileName: "a.bin", mimeType: nil), payload: UploaderTests.placeholder())
        #expect(eventually { entered.withLock { $0 } })
        run.uploader.cancel()
        release.withLock { $0 = true }
        guard case .uploadFailed(let error) = run.finish() else { Issue.record("not cancelled: \(String(describing: run.uploader.state))"); return }
        #expect(error.status == .cancelled)
        Self.checkEachUploadEndsOnce(run.states.withLock { $0 })
    }

    @Test func aFileThatShrinksWhileItIsSentFailsWithIOAtOnce() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        // Larger than loopback's socket buffers, so the client is still reading the file when it shrinks; its bytes
        // do not matter (made at once, unlike 12 MB of random bytes in a debug build).
        let path0 = try Fixtures.temporaryDirectory() + "/shrinking.ogg"
        try Data(repeating: 0x5A, count: 12 << 20).write(to: URL(fileURLWithPath: path0))
        let file = (path: path0, bytes: [UInt8]())
        let path = "/uploadmode/slowread-1000000/channels/messaging/general/file"
        var options = UploadOptions()
        options.http.stallTimeout = 60  // a stall would be .network; the shrinking is .io at once
        let run = try Run(server, path, options: options)
        try run.uploader.upload(.file(file.path), payload: UploaderTests.placeholder())
        #expect(eventually(seconds: 20) { server.isReceiving(path) })
        #expect(truncate(file.path, 1 << 20) == 0)
        guard case .uploadFailed(let error) = run.finish() else { Issue.record("did not fail: \(String(describing: run.uploader.state))"); return }
        #expect(error.status == .io, "\(error)")
        #expect(error.message.contains("while it was uploaded"), "\(error)")
    }
}
