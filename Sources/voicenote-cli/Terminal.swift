#if canImport(Glibc)
import Glibc
#endif

/// What the CLI knows of its terminal.
enum Terminal {
    /// Whether standard output is a terminal.
    static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether standard error is a terminal (where progress bars go).
    static var isInteractiveError: Bool { isatty(STDERR_FILENO) == 1 }

    /// The widest line the CLI draws: wider than any real terminal, and small enough that no `COLUMNS` makes a
    /// line cost more than a few kilobytes (`COLUMNS=1000000000` once asked for gigabytes).
    static let maximumColumns = 4096

    /// Columns of the terminal: the window size, else `COLUMNS`, else 80; at most `maximumColumns`.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return min(Int(size.ws_col), maximumColumns)
        }
        if let text = getenv("COLUMNS"), let value = columnCount(String(cString: text)) { return value }
        return 80
    }

    /// `COLUMNS` as a width: a positive decimal integer, clamped to `maximumColumns` (also when it is too large
    /// for `Int`); nil for anything else (empty, zero, negative, `abc`, `1e300`), which the caller ignores as
    /// curses does.
    static func columnCount(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        guard let value = Int(text) else { return maximumColumns }
        return value > 0 ? min(value, maximumColumns) : nil
    }

    /// Writes text to standard error, unbuffered.
    static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if count <= 0 { break }
            offset += count
        }
    }
}
