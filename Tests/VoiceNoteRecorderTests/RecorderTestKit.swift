import Foundation
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder
#if canImport(Glibc)
import Glibc
#endif

/// A virtual microphone (ALSA `file` plugin over an inline `null` slave) reading raw S16 mono frames.
func fileMicrophone(infile: String, rate: Int? = nil) -> DeviceSelection {
    let file = "{ type file slave.pcm { type null } file \"/dev/null\" infile \"\(infile)\" format raw }"
    guard let rate else { return DeviceSelection(name: "vn_mic", configuration: "pcm.vn_mic \(file)") }
    return DeviceSelection(name: "vn_mic", configuration: "pcm.vn_mic { type plug slave { pcm \(file) rate \(rate) } }")
}

/// The speech fixture over a room-like noise floor (pink noise at about −50 dBFS, as a real microphone hears
/// it), as raw S16 mono at `rate`, and its samples.
func speechInput(in directory: String, rate: Int = 48_000) throws -> (path: String, samples: [Int16]) {
    let path = directory + "/speech-\(rate).raw", noise = directory + "/noise.wav"
    try Fixtures.run(["sox", "-R", "-n", "-r", "48000", "-c", "1", "-b", "16", noise, "synth", "6.5", "pinknoise", "vol", "0.003"])
    try Fixtures.run(["sox", "-R", "-m", "-v", "1", try Fixtures.path(.wav), "-v", "1", noise, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L",
                      "-c", "1", "-r", String(rate), path])
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return (path, data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) })
}

/// Collects a recorder's events as they arrive on the event thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [RecorderEvent] = []

    init(_ recorder: Recorder) throws {
        _ = try recorder.events.subscribe({ [self] event in lock.withLock { events.append(event) } }, release: nil)
    }

    var all: [RecorderEvent] { lock.withLock { events } }

    /// Waits (bounded) until `predicate` holds for the events so far.
    @discardableResult
    func wait(seconds: Double = 20, until predicate: ([RecorderEvent]) -> Bool) -> Bool {
        eventually(seconds: seconds, pollMicroseconds: 1000) { predicate(all) }
    }

    /// The first finished result, waiting for it.
    func finished(seconds: Double = 20) -> RecordingResult? {
        wait(seconds: seconds) { $0.contains { if case .finished = $0 { true } else { false } } }
        for case .finished(let result) in all { return result }
        return nil
    }

    /// Whether the recorder is back in `stopped` (its last context says so).
    var stopped: Bool {
        for case .context(let context) in all.reversed() { return context.state == .stopped }
        return false
    }

    /// Failures so far.
    var failures: [VoiceNoteError] { all.compactMap { if case .failed(let error) = $0 { error } else { nil } } }
}

/// Decodes a file for playback (opusfile at 48 kHz, or FFmpeg), all of it.
func decode(_ path: String) throws -> (samples: [Int16], rate: Int) {
    let decoder = try Decoders.open(FileSource(path: path), purpose: .playback)
    var samples: [Int16] = []
    while try decoder.decodeNext({ samples.append(contentsOf: $0.samples) }) {}
    return (samples, decoder.outputRate)
}

/// The best correlation of `a` against `b` shifted by up to `maximumLag` samples either way.
func bestCorrelation(_ a: [Int16], _ b: [Int16], maximumLag: Int = 1000) -> Double {
    Correlation.best(a, b, lags: stride(from: -maximumLag, through: maximumLag, by: 4), minimumOverlap: 1001)?.value ?? -1
}

/// The status of a throwing call, or nil.
func status(of body: () throws -> Void) -> Status? {
    do { try body(); return nil } catch let error as VoiceNoteError { return error.status } catch { return .internal }
}

/// A recorder configuration writing into `directory` from `device`.
func configuration(directory: String, device: DeviceSelection, maximum: Double = 3600) -> RecorderConfiguration {
    var configuration = RecorderConfiguration()
    configuration.directory = directory
    configuration.device = device
    configuration.maximumDuration = maximum
    return configuration
}
