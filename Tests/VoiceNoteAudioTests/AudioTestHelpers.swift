import Foundation
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio
#if canImport(Glibc)
import Glibc
#endif

/// ALSA configuration text for a virtual microphone reading raw S16 frames from `infile` (ALSA's `file` plugin
/// over an inline `null` slave, STYLE.md). It delivers as fast as it is read, and stale data after `infile` ends.
func fileMicrophone(_ name: String, infile: String) -> String {
    "pcm.\(name) { type file slave.pcm { type null } file \"/dev/null\" infile \"\(infile)\" format raw }"
}

/// The same microphone behind a `plug` whose slave runs at `rate` only: with ALSA's resampler off (as
/// CaptureDevice opens it) the device offers exactly `rate`.
func fixedRateMicrophone(_ name: String, infile: String, rate: Int) -> String {
    "pcm.\(name) { type plug slave { pcm { type file slave.pcm { type null } file \"/dev/null\" " +
        "infile \"\(infile)\" format raw } rate \(rate) } }"
}

/// The int16 samples of a raw little-endian file.
func readSamples(_ path: String) throws -> [Int16] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

/// The fixture speech (48 kHz mono) as raw S16_LE in `directory`; returns the path.
func speechRaw(in directory: String) throws -> String {
    let path = directory + "/speech.raw"
    try Fixtures.run(["sox", try Fixtures.path(.wav), "-t", "raw", "-e", "signed-integer", "-b", "16", "-L",
                      "-c", "1", "-r", "48000", path])
    return path
}

/// Waits on the ring (each write or notify wakes it) until `condition` holds or `timeout` seconds pass; returns
/// whether it holds. Reads nothing.
func waitOnRing(_ ring: SampleRing, timeout: Double, until condition: () -> Bool) -> Bool {
    let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
    while !condition() {
        if monotonicNanoseconds() >= deadline { return condition() }
        _ = ring.wait(timeoutMilliseconds: 50)
    }
    return true
}

/// Consumer: reads the ring into `samples` until it holds `count` samples, the device stops running, or `timeout`
/// seconds pass (waiting on the ring between reads).
func collect(_ ring: SampleRing, from device: CaptureDevice, into samples: inout [Int16], count: Int, timeout: Double) {
    let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
    var buffer = [Int16](repeating: 0, count: 4096)
    while samples.count < count && monotonicNanoseconds() < deadline {
        let read = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        if read > 0 {
            samples.append(contentsOf: buffer[0..<read])
            continue
        }
        if !device.isRunning { break }
        _ = ring.wait(timeoutMilliseconds: 50)
    }
}

/// Empties the ring and its pending wake-ups.
func drain(_ ring: SampleRing) {
    var buffer = [Int16](repeating: 0, count: 4096)
    while buffer.withUnsafeMutableBufferPointer({ ring.read(into: $0) }) > 0 {}
    while ring.wait(timeoutMilliseconds: 0) {}
}

/// Upward zero crossings per second of `samples` at `rate`: the frequency of a sine.
func crossingsPerSecond(_ samples: [Int16], rate: Int) -> Double {
    var crossings = 0
    for i in 1..<samples.count where samples[i - 1] < 0 && samples[i] >= 0 { crossings += 1 }
    return Double(crossings) / (Double(samples.count) / Double(rate))
}

/// Peak absolute sample.
func peak(_ samples: some Collection<Int16>) -> Int {
    samples.reduce(0) { max($0, abs(Int($1))) }
}

/// Seconds on the monotonic clock since `start` (nanoseconds).
func seconds(since start: UInt64) -> Double {
    Double(monotonicNanoseconds() - start) / 1e9
}

/// Runs `body` with file descriptor 2 redirected to a file and returns what was written there; the text is then
/// written to the real stderr too (except lines containing `expected`), so output of tests running at the same
/// time is not lost. Callers look for ALSA's own lines ("ALSA lib ...") only, since other threads may write to
/// stderr meanwhile.
func capturingStandardError<T>(expected: String? = nil, _ body: () throws -> T) throws -> (T, String) {
    standardErrorLock.lock()   // two redirections interleaving would leave fd 2 pointing at a test's file
    defer { standardErrorLock.unlock() }
    let path = try Fixtures.temporaryDirectory() + "/stderr.txt"
    fflush(nil)
    let saved = dup(2)
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard saved >= 0, file >= 0 else { throw TestSetupError(message: "cannot redirect stderr: errno \(errno)") }
    dup2(file, 2)
    Glibc.close(file)
    let result: Result<T, any Error> = Result { try body() }
    fflush(nil)
    dup2(saved, 2)
    Glibc.close(saved)
    let text = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data(), as: UTF8.self)
    let others = text.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { line in expected.map { !line.contains($0) } ?? true }
        .joined(separator: "\n")
    if !others.isEmpty { others.utf8CString.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count - 1) } }
    return (try result.get(), text)
}

private let standardErrorLock = NSLock()

/// A test could not set itself up.
struct TestSetupError: Error, CustomStringConvertible {
    /// What failed.
    let message: String
    /// The message.
    var description: String { message }
}
