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
            // The byte is the signal's number, so the reader can tell them apart.
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(SignalPipe.writeEnd, &byte, 1)
            }
        }
    }

    /// The signals that arrived since the last call, oldest first (empty when none); never blocks.
    func received() -> [Int32] {
        var signals: [Int32] = []
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(readEnd, &bytes, bytes.count)
            guard count > 0 else { break }
            signals += bytes[..<count].map { Int32($0) }
        }
        return signals
    }
}
