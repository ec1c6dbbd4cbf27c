#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// Paths that are not regular files: refused at once with `.invalidArgument`, never waited on.
@Suite struct SpecialFileTests {
    /// What `body` threw when run on another thread (nil inside: it succeeded), or nil when it did not return
    /// within 10 s. If it hangs (the bug: open(2) of a FIFO waits for a writer), the FIFO's write end is opened and
    /// closed so that the thread ends and the test does not hang too.
    func errorWithoutWaiting(fifo: String, _ body: @escaping @Sendable () throws(VoiceNoteError) -> Void) -> VoiceNoteError?? {
        let outcome = Outcome()
        let thread = Thread {
            do throws(VoiceNoteError) { try body(); outcome.set(nil) } catch { outcome.set(error) }
        }
        thread.start()
        guard eventually(seconds: 10, { outcome.isSet }) else {
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)  // succeeds: the stuck open(2) is a reader
            if writer >= 0 { close(writer) }
            _ = eventually(seconds: 10) { outcome.isSet }
            return nil
        }
        return outcome.value
    }

    func makeFIFO() throws -> String {
        let path = try Fixtures.temporaryDirectory() + "/note.ogg"
        guard mkfifo(path, 0o600) == 0 else { throw SetupFailure("mkfifo \(path): errno \(errno)") }
        return path
    }

    @Test func infoOfAFIFOWithoutWriterIsInvalidArgumentAtOnce() throws {
        let fifo = try makeFIFO()
        let outcome = errorWithoutWaiting(fifo: fifo) { () throws(VoiceNoteError) in
            _ = try Decoders.info(of: FileSource(path: fifo))
        }
        #expect(outcome != nil, "info waited for a writer")
        #expect(outcome??.status == .invalidArgument)
        #expect(outcome??.message.contains("is a FIFO, not a regular file") == true)
    }

    @Test func analysisOfAFIFOWithoutWriterIsInvalidArgumentAtOnce() throws {
        let fifo = try makeFIFO()
        let outcome = errorWithoutWaiting(fifo: fifo) { () throws(VoiceNoteError) in
            _ = try Decoders.open(FileSource(path: fifo), purpose: .analysis)
        }
        #expect(outcome != nil, "opening for the waveform waited for a writer")
        #expect(outcome??.status == .invalidArgument)
    }

    @Test func characterDeviceIsInvalidArgument() {
        // /dev/zero would otherwise be read forever.
        #expect(status { _ = try FileSource(path: "/dev/zero") } == .invalidArgument)
    }

    @Test func regularFileStillReadsAfterTheNonBlockingOpen() throws {
        let source = try FileSource(path: Fixtures.path(.opus))
        #expect(source.size == Int64(try bytes(of: Fixtures.path(.opus)).count))
        #expect(try Decoders.info(of: source).codec == "opus")
    }
}

/// An error (or none) set once by another thread.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: VoiceNoteError??

    var isSet: Bool { lock.withLock { stored != nil } }
    var value: VoiceNoteError?? { lock.withLock { stored } }

    func set(_ error: VoiceNoteError?) {
        lock.withLock { stored = .some(error) }
    }
}

/// A test could not set up what it needs.
struct SetupFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
