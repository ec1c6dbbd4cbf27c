import Foundation
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNotePlayer
import VoiceNoteTestSupport

/// A virtual speaker: ALSA's `file` plugin over an inline `null` slave, taking frames unpaced and keeping them as raw
/// S16_LE in `outfile`.
struct FileSpeaker {
    let outfile: String
    let selection: DeviceSelection

    init(directory: String, name: String = "vn_player_spk") {
        outfile = directory + "/out.raw"
        selection = DeviceSelection(name: name, configuration:
            "pcm.\(name) { type file slave.pcm { type null } file \"\(outfile)\" format raw perm 0644 }")
    }

    /// A reader of raw S16_LE frames some other device wrote to `outfile`.
    init(outfile: String) {
        self.outfile = outfile
        selection = DeviceSelection()
    }

    /// A mono 48 kHz speaker that appends what it plays to its file across opens (the fault-injecting test PCM with
    /// no faults, appending); ALSA's `file` plugin truncates its file at every open, and keeps frames a drop discards unheard.
    static func appending(directory: String, name: String = "vn_player_heard") throws -> FileSpeaker {
        let outfile = directory + "/heard.raw"
        return FileSpeaker(outfile: outfile, selection: DeviceSelection(name: name, configuration:
            try FaultMicrophone.speakerConfiguration(name: name, outfile: outfile, faults: [], append: true)))
    }

    private init(outfile: String, selection: DeviceSelection) {
        self.outfile = outfile
        self.selection = selection
    }

    /// What the speaker was given so far.
    func samples() throws -> [Int16] {
        guard FileManager.default.fileExists(atPath: outfile) else { return [] }
        let data = try Data(contentsOf: URL(fileURLWithPath: outfile))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}

/// A player on `device`, in a focus group of its own (tests run in parallel; the shared group would make them pause
/// each other).
/// URLs go through `cache`, by default one of its own in a new directory (never the user's cache); positions are
/// remembered in `store`, by default one of its own too.
func makePlayer(_ device: DeviceSelection, group: FocusGroup? = FocusGroup(),
                hooks: SessionHooks = SessionHooks(), cache: MediaCache? = nil, store: ResumeStore? = nil) throws -> Player {
    var configuration = PlayerConfiguration()
    configuration.device = device
    configuration.focusGroup = group
    configuration.sessionHooks = hooks
    configuration.mediaCache = try cache ?? testCache()
    configuration.resumeStore = try store ?? ResumeStore(directory: Fixtures.temporaryDirectory())
    return try Player(configuration: configuration)
}

/// A media cache of its own, in a new directory under the fixtures' (made when first used).
func testCache() throws -> MediaCache {
    let cache = MediaCache()
    try cache.setDirectory(Fixtures.directory + "/cache-" + UUID().uuidString)
    return cache
}

/// Writes interleaved `samples` as a WAV file (through ffmpeg) and returns its path.
func writeWAV(_ samples: [Int16], rate: Int = 48_000, channels: Int = 1, in directory: String,
              name: String = "input.wav") throws -> String {
    let raw = directory + "/" + name + ".raw", path = directory + "/" + name
    try samples.withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: raw)) }
    try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "s16le", "-ar", String(rate), "-ac",
                      String(channels), "-i", raw, path])
    return path
}

/// Encodes mono 48 kHz `samples` as Ogg Opus with opusenc (64 kbit/s) and returns its path.
func writeOpus(_ samples: [Int16], in directory: String, name: String = "input.ogg") throws -> String {
    let wav = try writeWAV(samples, in: directory, name: name + ".wav")
    let path = directory + "/" + name
    try Fixtures.run(["opusenc", "--quiet", "--bitrate", "64", wav, path])
    return path
}

/// Converts `input` with ffmpeg (codec chosen by the extension of `name`, extra `arguments` before the output).
func transcode(_ input: String, to name: String, in directory: String, _ arguments: [String] = []) throws -> String {
    let path = directory + "/" + name
    try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", input] + arguments + [path])
    return path
}

/// Collects a player's events as they arrive on the event thread.
final class PlayerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [PlayerEvent] = []

    init(_ player: Player) throws {
        _ = try player.subscribe({ [self] event in lock.withLock { events.append(event) } })
    }

    var all: [PlayerEvent] { lock.withLock { events } }

    /// Waits (bounded) until `predicate` holds for the events so far.
    @discardableResult
    func wait(seconds: Double = 20, until predicate: ([PlayerEvent]) -> Bool) -> Bool {
        eventually(seconds: seconds, pollMicroseconds: 1000) { predicate(all) }
    }

    /// Waits for a `finished` event.
    @discardableResult
    func waitFinished(seconds: Double = 30) -> Bool {
        wait(seconds: seconds) { $0.contains { if case .finished = $0 { true } else { false } } }
    }

    /// Waits for a `failed` event and returns its error.
    func waitFailure(seconds: Double = 20) -> VoiceNoteError? {
        wait(seconds: seconds) { $0.contains { if case .failed = $0 { true } else { false } } }
        return failures.first
    }

    /// Waits until a context with `state` arrived after the `after`-th event.
    @discardableResult
    func wait(for state: PlayerState, after: Int = 0, seconds: Double = 20) -> PlayerContext? {
        var found: PlayerContext?
        wait(seconds: seconds) { events in
            for case .context(let context) in events.dropFirst(after) where context.state == state {
                found = context
                return true
            }
            return false
        }
        return found
    }

    /// The contexts so far.
    var contexts: [PlayerContext] { all.compactMap { if case .context(let context) = $0 { context } else { nil } } }
    /// The states in order, repeats collapsed.
    var states: [PlayerState] {
        contexts.map(\.state).reduce(into: []) { if $0.last != $1 { $0.append($1) } }
    }
    var failures: [VoiceNoteError] { all.compactMap { if case .failed(let error) = $0 { error } else { nil } } }
    var finishedCount: Int { all.filter { if case .finished = $0 { true } else { false } }.count }
}

/// A sine at `frequency` Hz, mono, `seconds` long at `rate`.
func tone(_ frequency: Double, seconds: Double, rate: Int = 48_000, amplitude: Double = 0.5) -> [Int16] {
    (0..<Int(seconds * Double(rate))).map {
        Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double($0) / Double(rate))).rounded())
    }
}

/// The frequency of a mono tone measured by its rising zero crossings.
func measuredFrequency(_ samples: ArraySlice<Int16>, rate: Int) -> Double {
    var crossings: [Int] = []
    var previous = samples.first ?? 0
    for (index, sample) in zip(samples.indices, samples) {
        if previous < 0 && sample >= 0 { crossings.append(index) }
        previous = sample
    }
    guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) * Double(rate) / Double(last - first)
}

/// The RMS of a stretch of samples.
func rms(_ samples: ArraySlice<Int16>) -> Double {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

/// The index of the first sample where `a` and `b` differ, nil when they are equal.
func firstDifference(_ a: [Int16], _ b: [Int16]) -> Int? {
    if let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return index }
    return a.count == b.count ? nil : min(a.count, b.count)
}
