import VoiceNoteCore

/// Values written into ALSA configuration text (`DeviceSelection.configuration`) that come from outside, paths
/// above all; every such value goes through here. alsa-lib's parser (conf.c) reads a double-quoted string with
/// backslash escapes, but drops an escaped newline (a line continuation), and takes a string value that starts with
/// `$` for a variable; the `file` plugin (pcm_file.c) runs an output name that starts with `|` as a shell command
/// and replaces `%r`, `%c`, `%b` and `%f` in it (`%%` is one `%`, another `%x` is `x`).
public enum ALSAConfigurationText {
    /// `text` as an ALSA configuration string: in double quotes, `"` and `\` escaped, every other character as it
    /// is (a newline too, since conf.c drops an escaped one), so the parser reads back exactly `text`.
    /// - Throws: `.invalidArgument` for a NUL character (the C text would end there).
    public static func quoted(_ text: String) throws(VoiceNoteError) -> String {
        guard !text.utf8.contains(0) else {
            throw VoiceNoteError(.invalidArgument, "ALSA configuration text holds no NUL character")
        }
        var quoted = "\""
        for character in text.unicodeScalars {
            if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }

    /// A path for the `file` plugin's `infile` (opened as it is): quoted, and made to start with `/` or `./`, so no
    /// name is read as a variable. - Throws: `.invalidArgument` for an empty path or a NUL character.
    public static func inputFile(_ path: String) throws(VoiceNoteError) -> String {
        try quoted(try plainPath(path))
    }

    /// A path for the `file` plugin's `file` (the output): as `inputFile` (so it never starts with `|`, a command),
    /// with each `%` doubled so none is replaced. - Throws: as `inputFile`.
    public static func outputFile(_ path: String) throws(VoiceNoteError) -> String {
        var escaped = ""
        for character in try plainPath(path).unicodeScalars {
            if character == "%" { escaped.unicodeScalars.append("%") }
            escaped.unicodeScalars.append(character)
        }
        return try quoted(escaped)
    }

    /// `path`, with `./` before a relative one (the same file, and a first character nothing interprets).
    private static func plainPath(_ path: String) throws(VoiceNoteError) -> String {
        guard !path.isEmpty else { throw VoiceNoteError(.invalidArgument, "an ALSA file device needs a path") }
        return path.hasPrefix("/") ? path : "./" + path
    }
}
