#if canImport(Glibc)
import Glibc
#endif
import CPocketSphinxLoader
import VoiceNoteCore

/// PocketSphinx (CMU Sphinx, Debian's `libpocketsphinx3` 5prealpha) with a model directory laid out as Debian's
/// `pocketsphinx-en-us`: `<model>/<language>` (the acoustic model), `<model>/<language>.lm.bin` (the language model)
/// and `<model>/cmudict-<language>.dict` (the dictionary). Opened with dlopen on the first session (`.unsupported`
/// naming the packages when absent). Written against `TranscriptionBackend`, the interface a host's backend
/// implements too.
///
/// A session splits the note into utterances the way PocketSphinx's own `pocketsphinx_continuous -infile` does
/// (its voice activity detector, checked after every 2048 samples), so its words are the reference tool's: each
/// utterance's words are answered when the utterance ends.
public struct PocketSphinxBackend: TranscriptionBackend {
    /// Debian's model directory.
    public static let defaultModelDirectory = "/usr/share/pocketsphinx/model"
    /// Debian's one model.
    public static let defaultLanguage = "en-us"

    /// The directory holding the model.
    public let modelDirectory: String
    /// The model's language (its file names).
    public let language: String

    /// PocketSphinx with the model for `language` in `modelDirectory` (nil: Debian's). Nothing is loaded until a
    /// session begins. `.invalidArgument` for a language that is empty or holds `/`.
    public init(modelDirectory: String? = nil, language: String? = nil) throws(VoiceNoteError) {
        let language = language ?? Self.defaultLanguage
        guard !language.isEmpty, !language.contains("/"), !language.utf8.contains(0) else {
            throw VoiceNoteError(.invalidArgument, "a PocketSphinx language is a model's name (en-us), not \"\(language)\"")
        }
        if let modelDirectory, modelDirectory.isEmpty || modelDirectory.utf8.contains(0) {
            throw VoiceNoteError(.invalidArgument, "the PocketSphinx model directory is empty or holds a NUL byte")
        }
        self.modelDirectory = modelDirectory ?? Self.defaultModelDirectory
        self.language = language
    }

    public var identity: String { "pocketsphinx/\(language)" + (modelDirectory == Self.defaultModelDirectory ? "" : "@\(modelDirectory)") }

    /// The rate of the models PocketSphinx ships (and of its default front end).
    static let rate = 16000

    public var sampleRate: Int { Self.rate }

    /// A decoder takes 93 MB and a CPU: its sessions take turns.
    public var takesTurns: Bool { true }

    /// The files of the model, checked before PocketSphinx sees them (it ends the process on some missing files).
    var modelFiles: (acoustic: String, languageModel: String, dictionary: String) {
        let base = modelDirectory + "/" + language
        return (base + "/" + language, base + "/" + language + ".lm.bin", base + "/cmudict-" + language + ".dict")
    }

    public func begin() throws(VoiceNoteError) -> any TranscriptionSession {
        try Self.requireLibrary()
        let files = modelFiles
        for (path, isDirectory) in [(files.acoustic, true), (files.languageModel, false), (files.dictionary, false)] {
            var status = stat()
            guard stat(path, &status) == 0, (status.st_mode & S_IFMT == S_IFDIR) == isDirectory else {
                throw VoiceNoteError(.unsupported, "the PocketSphinx model \(language) is not installed (no \(path); Debian: pocketsphinx-\(language))")
            }
        }
        for file in ["mdef", "means", "variances", "transition_matrices", "feat.params"] {
            guard access(files.acoustic + "/" + file, R_OK) == 0 else {
                throw VoiceNoteError(.unsupported, "the PocketSphinx acoustic model \(files.acoustic) has no readable \(file)")
            }
        }
        return try PocketSphinxSession(arguments: ["-hmm", files.acoustic, "-lm", files.languageModel, "-dict", files.dictionary])
    }

    /// Loads PocketSphinx (once per process), its log going to ours; `.unsupported` naming what to install.
    static func requireLibrary() throws(VoiceNoteError) {
        _ = routedLog
        var message: UnsafePointer<CChar>?
        guard vnshim_pocketsphinx_load(&message) == 0 else {
            throw VoiceNoteError(.unsupported, "transcripts need PocketSphinx: "
                                 + (message.map { String(cString: $0) } ?? "it could not be loaded"))
        }
    }

    /// sphinxbase's log lines through voicenote's log hook (set once, before the load).
    private static let routedLog: Void = {
        vnshim_pocketsphinx_set_log_sink(vnshim_pocketsphinx_log_sink(
            wants: { level in LogLevel(rawValue: level).map(Log.isEnabled) == true ? 1 : 0 },
            write: { level, line in
                guard let level = LogLevel(rawValue: level), let line else { return }
                Log.write(level, "PocketSphinx: " + String(cString: line))
            }))
    }()
}

/// One note through one PocketSphinx decoder (made per note: PocketSphinx adapts its cepstral mean as it hears, so a
/// decoder that heard another note first would hear this one differently).
final class PocketSphinxSession: TranscriptionSession {
    /// What `pocketsphinx_continuous` reads at a time, and checks for the end of an utterance after.
    static let block = 2048

    private let config: OpaquePointer
    private let decoder: OpaquePointer
    private let framesPerSecond: Double
    private var pending: [Int16] = []
    private var inUtterance = false  // the detector has heard speech since the utterance began
    private var finished = false

    init(arguments: [String]) throws(VoiceNoteError) {
        var copies = arguments.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        guard let config = copies.withUnsafeMutableBufferPointer({
            cmd_ln_parse_r(nil, ps_args(), Int32($0.count), $0.baseAddress, 1)
        }) else { throw VoiceNoteError(.internal, "PocketSphinx refused its configuration") }
        guard let decoder = ps_init(config) else {
            _ = cmd_ln_free_r(config)
            throw VoiceNoteError(.format, "PocketSphinx could not load its model (\(arguments.joined(separator: " ")))")
        }
        self.config = config
        self.decoder = decoder
        let rate = cmd_ln_int_r(config, "-frate")
        framesPerSecond = rate > 0 ? Double(rate) : 100
        pending.reserveCapacity(Self.block)
        guard ps_start_utt(decoder) >= 0 else {
            _ = ps_free(decoder)
            _ = cmd_ln_free_r(config)
            throw VoiceNoteError(.internal, "PocketSphinx could not start an utterance")
        }
    }

    deinit {
        _ = ps_free(decoder)
        _ = cmd_ln_free_r(config)
    }

    func feed(_ samples: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> [TranscriptWord] {
        guard !finished else { throw VoiceNoteError(.misuse, "the PocketSphinx session has finished") }
        var words: [TranscriptWord] = []
        var at = 0
        while at < samples.count {
            let taken = min(Self.block - pending.count, samples.count - at)
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: samples[at..<(at + taken)]))
            at += taken
            if pending.count == Self.block { words += try process() }
        }
        return words
    }

    func finish() throws(VoiceNoteError) -> [TranscriptWord] {
        guard !finished else { return [] }
        var words = pending.isEmpty ? [] : try process()
        finished = true
        guard ps_end_utt(decoder) >= 0 else { throw VoiceNoteError(.internal, "PocketSphinx could not end the last utterance") }
        if inUtterance { words += self.words() }
        return words
    }

    /// Feeds the pending block; when the detector heard an utterance end, ends it, answers its words and begins
    /// the next (as `pocketsphinx_continuous` does).
    private func process() throws(VoiceNoteError) -> [TranscriptWord] {
        let result = pending.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 0) }
        pending.removeAll(keepingCapacity: true)
        guard result >= 0 else { throw VoiceNoteError(.internal, "PocketSphinx could not process the audio") }
        let speaking = ps_get_in_speech(decoder) != 0
        if speaking { inUtterance = true }
        guard !speaking && inUtterance else { return [] }
        guard ps_end_utt(decoder) >= 0 else { throw VoiceNoteError(.internal, "PocketSphinx could not end an utterance") }
        let words = self.words()
        inUtterance = false
        guard ps_start_utt(decoder) >= 0 else { throw VoiceNoteError(.internal, "PocketSphinx could not start an utterance") }
        return words
    }

    /// The words of the utterance just ended, fillers and silences left out. PocketSphinx counts frames from the
    /// decoder's first sample, across utterances, so its times are the note's.
    private func words() -> [TranscriptWord] {
        let logmath = ps_get_logmath(decoder)
        var words: [TranscriptWord] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            if let spelled = ps_seg_word(current).map({ String(cString: $0) }), let text = Self.spoken(spelled) {
                var first: Int32 = 0, last: Int32 = 0
                ps_seg_frames(current, &first, &last)
                let probability = logmath.map { logmath_exp($0, ps_seg_prob(current, nil, nil, nil)) } ?? 1
                let start = Double(max(first, 0)) / framesPerSecond
                let end = Double(max(last, first, 0)) / framesPerSecond
                let confidence = probability.isFinite ? min(max(probability, 0), 1) : 0
                if let word = try? TranscriptWord(text: text, start: start, end: end, confidence: confidence) { words.append(word) }
            }
            segment = ps_seg_next(current)
        }
        return words
    }

    /// A segment's word as spoken: nil for silence and fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++`),
    /// an alternative pronunciation's number dropped (`the(2)` → `the`).
    static func spoken(_ word: String) -> String? {
        guard let first = word.first, !"<[+".contains(first) else { return nil }
        if word.hasSuffix(")"), let open = word.lastIndex(of: "("), word.index(after: open) < word.index(before: word.endIndex),
           word[word.index(after: open)..<word.index(before: word.endIndex)].allSatisfy(\.isNumber) {
            return String(word[..<open])
        }
        return word
    }
}
