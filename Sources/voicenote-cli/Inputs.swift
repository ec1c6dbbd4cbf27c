#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// The command line's inputs, then the lines of `--from` (empty lines skipped), read one at a time.
struct Inputs {
    let arguments: [String]
    let from: String?
    private var position = 0
    private var file: UnsafeMutablePointer<FILE>?

    init(arguments: [String], from: String?) {
        self.arguments = arguments
        self.from = from
    }

    mutating func open() throws {
        guard let from, from != "-" else { return }
        guard let opened = fopen(from, "r") else {
            throw VoiceNoteError.fromErrno(errno, "cannot read the inputs from \(from)")
        }
        file = opened
    }

    mutating func close() {
        if let file { fclose(file) }
        file = nil
    }

    mutating func next() -> String? {
        if position < arguments.count {
            position += 1
            return arguments[position - 1]
        }
        guard let from else { return nil }
        while true {
            guard let text = from == "-" ? Swift.readLine() : readLine(from: file) else { return nil }
            let trimmed = text.trimmingWhitespace()
            if !trimmed.isEmpty { return trimmed }
        }
    }

    /// A line of `file` without its newline; nil at the end.
    private func readLine(from file: UnsafeMutablePointer<FILE>?) -> String? {
        guard let file else { return nil }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        let length = getline(&line, &capacity, file)
        guard length >= 0, let line else { return nil }
        var text = String(cString: line)
        if text.hasSuffix("\n") || text.hasSuffix("\r\n") { text.removeLast() }  // "\r\n" is one Character
        return text
    }
}

private extension String {
    /// Without leading and trailing spaces, tabs and carriage returns.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
