import Foundation

/// Real audio files for tests, made at test time from espeak-ng speech with sox, opusenc and ffmpeg
/// (no mocks where the real thing runs here). Made once per test process, in one temporary directory.
public enum Fixtures {
    /// The kinds of file the decoders must read.
    public enum Kind: String, CaseIterable, Sendable {
        case opus = "speech.ogg"
        case opusStereo = "stereo.ogg"
        case opusSurround = "surround.ogg"
        case opusChained = "chained.ogg"
        case aacADTS = "speech.aac"
        case m4a = "speech.m4a"
        case mp3 = "speech.mp3"
        case wav = "speech.wav"
        case flac = "speech.flac"
        case vorbis = "speech.oga"
    }

    /// The directory holding every fixture.
    public static var directory: String { state.directory }

    /// The path of a fixture, made on first use.
    public static func path(_ kind: Kind) throws -> String {
        try state.make(kind)
    }

    /// A new empty temporary directory for one test.
    public static func temporaryDirectory() throws -> String {
        let path = directory + "/t-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs a program (found on PATH) and fails with its stderr when it exits non-zero.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(errorText)")
        }
        return data
    }

    /// The audio of `path` as FFmpeg decodes it: interleaved int16 at `rate` with `channels`.
    public static func referencePCM(_ path: String, rate: Int, channels: Int) throws -> [Int16] {
        let data = try run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le",
                            "-ar", String(rate), "-ac", String(channels), "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    private static let state = State()

    private final class State: Sendable {
        let directory: String
        /// NSLock, not Synchronization.Mutex: ThreadSanitizer sees pthread locks, not futex waits.
        private let lock = NSLock()
        private nonisolated(unsafe) var made: [Kind: String] = [:]

        init() {
            directory = NSTemporaryDirectory() + "voicenote-fixtures-" + UUID().uuidString
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            fixtureDirectoryToRemove = directory
            atexit {
                if let directory = fixtureDirectoryToRemove { try? FileManager.default.removeItem(atPath: directory) }
            }
        }

        func make(_ kind: Kind) throws -> String {
            try lock.withLock { try ensure(kind, &made) }
        }

        /// Makes `kind` (and what it is made from) unless made already; called with the lock held.
        private func ensure(_ kind: Kind, _ made: inout [Kind: String]) throws -> String {
            if let path = made[kind] { return path }
            let path = directory + "/" + kind.rawValue
            if kind == .opusChained { _ = try ensure(.opus, &made) }
            try build(kind, path)
            made[kind] = path
            return path
        }

        private func speech(_ name: String, _ text: String, voice: String) throws -> String {
            let raw = directory + "/\(name)-raw.wav", out = directory + "/\(name).wav"
            if !FileManager.default.fileExists(atPath: out) {
                try run(["espeak-ng", "-v", voice, "-w", raw, text])
                // 48 kHz mono, a faint noise floor so no bucket is digital silence, a pause at the end.
                try run(["sox", "-R", raw, "-r", "48000", "-c", "1", "-b", "16", out, "rate", "-v", "48k", "gain", "-n", "-3",
                         "pad", "0", "0.4", "dither", "-s"])
            }
            return out
        }

        private func build(_ kind: Kind, _ path: String) throws {
            let main = try speech("main", "Hey, it's me. I'm just leaving the office now. See you at seven, and bring the charger.", voice: "en-us")
            let other = try speech("other", "Second part of a chained voice note.", voice: "en-gb")
            switch kind {
            case .wav:
                try FileManager.default.copyItem(atPath: main, toPath: path)
            case .opus:
                try run(["opusenc", "--quiet", "--serial", "1", "--bitrate", "32", "--framesize", "20", main, path])
            case .opusStereo:
                let stereo = directory + "/stereo.wav"
                try run(["sox", "-R", "-M", main, main, stereo, "remix", "1", "2v0.5"])
                try run(["opusenc", "--quiet", "--serial", "2", "--bitrate", "48", stereo, path])
            case .opusSurround:
                let surround = directory + "/surround.wav"
                try run(["sox", "-R", "-M", main, main, main, main, main, main, surround])
                try run(["opusenc", "--quiet", "--serial", "3", "--bitrate", "96", surround, path])
            case .opusChained:
                let first = directory + "/" + Kind.opus.rawValue
                let second = directory + "/second.ogg"
                try run(["opusenc", "--quiet", "--serial", "4", "--bitrate", "32", other, second])
                let joined = try Data(contentsOf: URL(fileURLWithPath: first)) + Data(contentsOf: URL(fileURLWithPath: second))
                try joined.write(to: URL(fileURLWithPath: path))
            case .aacADTS:
                try run(["ffmpeg", "-nostdin", "-v", "error", "-i", main, "-c:a", "aac", "-b:a", "64k", "-f", "adts", path])
            case .m4a:
                try run(["ffmpeg", "-nostdin", "-v", "error", "-i", main, "-c:a", "aac", "-b:a", "64k", path])
            case .mp3:
                try run(["ffmpeg", "-nostdin", "-v", "error", "-i", main, "-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0", path])
            case .flac:
                try run(["ffmpeg", "-nostdin", "-v", "error", "-i", main, "-c:a", "flac", path])
            case .vorbis:
                try run(["ffmpeg", "-nostdin", "-v", "error", "-i", main, "-c:a", "libvorbis", "-q:a", "3", "-f", "ogg", path])
            }
        }
    }
}

/// Removed when the test process exits.
private nonisolated(unsafe) var fixtureDirectoryToRemove: String?

/// A fixture could not be made (a tool failed).
public struct FixtureError: Error, CustomStringConvertible {
    /// What failed.
    public let message: String
    /// The message.
    public var description: String { message }
}
