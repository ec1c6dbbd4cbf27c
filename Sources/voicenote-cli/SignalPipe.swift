#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// Turns signals into a readable pipe (the self-pipe trick), so a poll loop can wait for Ctrl-C with its other inputs.
final class SignalPipe {
    /// Readable after one of the signals arrived.
    let readEnd: Int32
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    init(signals: [Int32]) throws(VoiceNoteError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw VoiceNoteError.fromErrno(errno, "pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        readEnd = ends[0]
        Self.writeEnd = ends[1]
        for number in signals {
            signal(number) { _ in
                var byte: UInt8 = 1
                _ = write(SignalPipe.writeEnd, &byte, 1)
            }
        }
    }
}
