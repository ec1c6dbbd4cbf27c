#if canImport(Glibc)
import Glibc
#endif

/// What the CLI knows of its terminal.
enum Terminal {
    /// Whether standard output is a terminal.
    static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Columns of the terminal: the window size, else `COLUMNS`, else 80.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = getenv("COLUMNS"), let value = Int(String(cString: text)), value > 0 { return value }
        return 80
    }
}
