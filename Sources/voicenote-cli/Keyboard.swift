#if canImport(Glibc)
import Glibc
#endif

/// The terminal on standard input in non-canonical mode without echo (signals kept: Ctrl-C is SIGINT), read as keys.
final class Keyboard {
    private var saved = termios()
    private(set) var isActive = false
    private var decoder = KeyDecoder()

    /// Whether standard input is a terminal this process may read: this process is in the terminal's foreground
    /// process group, or the terminal is not its controlling terminal (no job control then).
    static var isAvailable: Bool {
        guard isatty(STDIN_FILENO) == 1 else { return false }
        let foreground = tcgetpgrp(STDIN_FILENO)
        return foreground == getpgrp() || (foreground == -1 && errno == ENOTTY)
    }

    /// Takes the keyboard if this process is in the terminal's foreground (else at the first `resumed` that is).
    init() { enter() }

    /// Switches the terminal to key-at-a-time input, when this process is in its foreground.
    func enter() {
        guard !isActive, Self.isAvailable, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        isActive = applyRaw()
        decoder = KeyDecoder()
    }

    /// After SIGCONT: in the foreground, takes the keyboard (again: a shell may have reset the terminal while the
    /// process was stopped); in the background, stops reading it without touching the terminal (that would stop
    /// the process with SIGTTOU; the shell keeps its own settings).
    func resumed() {
        guard isActive else { return enter() }
        if !Self.isAvailable || !applyRaw() { isActive = false }
    }

    /// `saved` without canonical input and echo, one byte at a time; whether the terminal took it.
    private func applyRaw() -> Bool {
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        return tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0
    }

    /// Puts the terminal back as it was (idempotent).
    func restore() {
        guard isActive else { return }
        isActive = false
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// The keys that arrived (call when standard input is readable). An end of input stops the reading.
    func read() -> [KeyPress] {
        guard let keys = decoder.read(STDIN_FILENO) else {
            restore()
            return []
        }
        return keys
    }
}

/// A key from a terminal (or bytes piped in the same way).
enum KeyPress: Equatable {
    /// A printable byte or a control byte without a key of its own.
    case character(UInt8)
    case left, right, up, down, escape, enter, tab
}

/// Turns terminal input into keys: bytes, the arrows' escape sequences (ESC [ x and ESC O x), a lone ESC (Escape:
/// a terminal sends a sequence in one write, so an ESC that ends the input read is the key itself), Enter (CR or
/// LF) and Tab. Other escape sequences are skipped whole; one cut between two reads waits for the rest.
struct KeyDecoder {
    /// Bytes of an escape sequence not complete yet.
    private var pending: [UInt8] = []

    /// Reads what `descriptor` has and decodes it; nil at the end of input or on an error other than EINTR/EAGAIN.
    mutating func read(_ descriptor: Int32) -> [KeyPress]? {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = Glibc.read(descriptor, &bytes, bytes.count)
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { return nil }
        guard count > 0 else { return [] }
        return decode(pending + bytes[..<count])
    }

    /// Decodes keys; an unfinished escape sequence waits in `pending` for the next read.
    mutating func decode(_ input: [UInt8]) -> [KeyPress] {
        var keys: [KeyPress] = []
        var index = 0
        pending = []
        while index < input.count {
            let byte = input[index]
            guard byte == 0x1B else {
                switch byte {
                case 0x0D, 0x0A: keys.append(.enter)
                case 0x09: keys.append(.tab)
                default: keys.append(.character(byte))
                }
                index += 1
                continue
            }
            guard index + 1 < input.count else { keys.append(.escape); break }
            let introducer = input[index + 1]
            guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
                keys.append(.escape)
                index += 1
                continue
            }
            var end = index + 2
            while end < input.count, !(0x40...0x7E).contains(input[end]) { end += 1 }
            guard end < input.count else { pending = Array(input[index...]); break }
            if end == index + 2 {
                switch input[end] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
            }
            index = end + 1
        }
        return keys
    }
}
