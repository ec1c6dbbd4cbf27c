#if canImport(Glibc)
import Glibc
#endif

/// Standard input watched for Enter (a newline) by `voicenote record`, whatever its progress mode: a terminal, a pipe
/// or a file. Bytes other than a newline are read and ignored. At the end of input (`</dev/null`, a pipe whose writer
/// closed without a newline), on a read error, or when standard input is closed or a terminal this process may not
/// read (a background job: reading would stop it with SIGTTIN), nothing is watched and the take runs on until a
/// signal or its length limit.
struct EnterWatch {
    /// Whether standard input is still watched.
    private(set) var isWatching: Bool

    /// Decides once whether standard input can be watched. Make it before anything else opens a descriptor: with
    /// standard input closed, the next descriptor opened would be number 0, and its bytes would be taken for input.
    init() {
        guard fcntl(STDIN_FILENO, F_GETFD) != -1 else {
            isWatching = false
            return
        }
        isWatching = isatty(STDIN_FILENO) == 0 || Keyboard.isAvailable
    }

    /// The poll entry for standard input while watched (a negative descriptor, which poll skips, once not).
    var pollDescriptor: pollfd {
        pollfd(fd: isWatching ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0)
    }

    /// After poll: reads what standard input has (one read, which poll said will not block) and tells whether it
    /// held a newline. The end of input or an error ends the watch.
    mutating func enterPressed(_ polled: pollfd) -> Bool {
        guard isWatching, polled.revents != 0 else { return false }
        guard polled.revents & Int16(POLLNVAL) == 0 else {
            isWatching = false
            return false
        }
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return false }
        guard count > 0 else {
            isWatching = false
            return false
        }
        return bytes[..<count].contains { $0 == 0x0A || $0 == 0x0D }
    }
}
