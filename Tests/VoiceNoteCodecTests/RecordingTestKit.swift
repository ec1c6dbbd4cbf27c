import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// Helpers for the recording encoder and recovery tests: real PCM from the fixtures, encoding in uneven chunks,
/// alignment, ADTS frames, and a tiny tmpfs for disk-full tests.
enum RecordingTestKit {
    /// The samples of a 16-bit PCM WAV file (its "data" chunk, found by walking the RIFF chunks).
    static func wavSamples(_ path: String) throws -> [Int16] {
        let data = try bytes(of: path)
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size = (0..<4).reduce(0) { $0 | Int(data[offset + 4 + $1]) << (8 * $1) }
            if id == "data" {
                let end = min(data.count, offset + 8 + size)
                return data[(offset + 8)..<end].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            }
            offset += 8 + size + (size & 1)
        }
        throw VoiceNoteError(.format, "\(path): no data chunk")
    }

    /// The speech fixture's samples: 48 kHz mono.
    static func speech() throws -> [Int16] { try wavSamples(Fixtures.path(.wav)) }

    /// `samples` repeated until `seconds` long at `rate`.
    static func looped(_ samples: [Int16], seconds: Double, rate: Int = 48_000) -> [Int16] {
        let count = Int(seconds * Double(rate))
        return (0..<count).map { samples[$0 % samples.count] }
    }

    /// Chunk sizes that vary like a device's periods do (deterministic): 1 ... 4000 frames.
    static func unevenChunks(total: Int, seed: UInt32 = 12_345) -> [Int] {
        var state = seed
        var chunks: [Int] = []
        var done = 0
        while done < total {
            state = state &* 1_103_515_245 &+ 12_345
            let size = min(total - done, Int(state >> 16) % 4000 + 1)
            chunks.append(size)
            done += size
        }
        return chunks
    }

    /// Writes interleaved `samples` into `encoder` in `chunks` (frame counts); after each write calls `after`.
    static func feed(_ encoder: any RecordingEncoder, _ samples: [Int16], channels: Int = 1, chunks: [Int],
                     after: (Int) throws -> Void = { _ in }) throws {
        var offset = 0
        try samples.withUnsafeBufferPointer { all in
            for frames in chunks {
                let end = offset + frames * channels
                try encoder.write(UnsafeBufferPointer(rebasing: all[offset..<end]))
                offset = end
                try after(offset / channels)
            }
        }
    }

    /// Encodes `samples` into a new file `name` in a fresh directory, finishes it, and returns its path.
    static func encodeFile(_ samples: [Int16], format: RecordingFormat, rate: Int = 48_000, channels: Int = 1,
                           settings: EncoderSettings = EncoderSettings(), name: String? = nil) throws -> String {
        let path = try Fixtures.temporaryDirectory() + "/" + (name ?? "take.\(format.fileExtension)")
        let encoder = try RecordingEncoders.create(format, path: path, inputRate: rate, channels: channels, settings: settings)
        try feed(encoder, samples, channels: channels, chunks: unevenChunks(total: samples.count / channels))
        try encoder.finish()
        return path
    }

    /// Everything the content-chosen playback decoder gives for a file.
    static func decodeForPlayback(_ path: String) throws -> (samples: [Int16], rate: Int, channels: Int) {
        let decoder = try Decoders.open(FileSource(path: path), purpose: .playback)
        return (try decodeAll(decoder), decoder.outputRate, decoder.outputChannels)
    }

    /// The best Pearson correlation of `decoded` against `reference` over lags in `-maximumLag...maximumLag`
    /// (positive: `decoded` is late), found on the loudest second and then measured over the whole overlap.
    static func alignedCorrelation(_ decoded: [Int16], _ reference: [Int16], maximumLag: Int) -> (correlation: Double, lag: Int) {
        let window = 48_000
        guard reference.count > window + 2 * maximumLag, decoded.count > window + 2 * maximumLag else {
            return (correlation(decoded, reference), 0)
        }
        // The loudest stretch of the reference gives a sharp peak.
        var bestStart = maximumLag, bestEnergy = -1.0
        for start in stride(from: maximumLag, to: reference.count - window - maximumLag, by: window / 4) {
            let energy = reference[start..<(start + window)].reduce(0.0) { $0 + Double($1) * Double($1) }
            if energy > bestEnergy { bestEnergy = energy; bestStart = start }
        }
        let a = reference.map(Float.init), b = decoded.map(Float.init)
        var bestLag = 0, bestScore = -Float.infinity
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for lag in -maximumLag...maximumLag {
                    let start = bestStart + lag
                    guard start >= 0, start + window <= b.count else { continue }
                    var sum: Float = 0
                    for i in 0..<window { sum += a[bestStart + i] * b[start + i] }
                    if sum > bestScore { bestScore = sum; bestLag = lag }
                }
            }
        }
        let shifted: [Int16] = bestLag >= 0 ? Array(decoded.dropFirst(bestLag)) : Array(repeating: 0, count: -bestLag) + decoded
        let n = min(shifted.count, reference.count)
        return (correlation(Array(shifted.prefix(n)), Array(reference.prefix(n))), bestLag)
    }

    /// Frequency of a mono tone from its zero crossings, over the middle half of the signal.
    static func toneFrequency(_ samples: [Int16], rate: Int) -> Double {
        let middle = Array(samples[(samples.count / 4)..<(samples.count * 3 / 4)])
        var crossings = 0
        for i in 1..<middle.count where (middle[i - 1] < 0) != (middle[i] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(middle.count) / Double(rate))
    }

    /// Offsets and lengths of the ADTS frames of a file, from its headers.
    static func adtsFrames(_ data: [UInt8]) -> [(offset: Int, length: Int)] {
        var frames: [(offset: Int, length: Int)] = []
        var offset = 0
        while offset + 7 <= data.count, data[offset] == 0xFF, data[offset + 1] & 0xF6 == 0xF0 {
            let length = Int(data[offset + 3] & 0x03) << 11 | Int(data[offset + 4]) << 3 | Int(data[offset + 5]) >> 5
            guard length > 7, offset + length <= data.count else { break }
            frames.append((offset, length))
            offset += length
        }
        return frames
    }

    /// The granule, flags and byte range of each page of an Ogg file.
    static func pageMap(_ data: [UInt8]) -> [(offset: Int, length: Int, page: OggPage)] {
        var map: [(offset: Int, length: Int, page: OggPage)] = []
        var offset = 0
        for page in OggPage.parse(data) {
            let length = 27 + page.segments.count + page.body.count
            map.append((offset, length, page))
            offset += length
        }
        return map
    }

    /// Runs `body` with a directory on a fresh 64 KiB tmpfs (as root), unmounted afterwards; nil when this system
    /// does not let the test mount (then callers use a file-size limit instead).
    static func withTinyFileSystem<T>(_ body: (String) throws -> T) throws -> T? {
        let directory = try Fixtures.temporaryDirectory() + "/tiny"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            try Fixtures.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", directory])
        } catch {
            return nil
        }
        defer {
            // A child forked by a concurrent test may still hold an inherited descriptor in here: then detach
            // lazily (the kernel frees the tmpfs when that child exits) rather than leave a mount behind.
            if (try? Fixtures.run(["umount", directory])) == nil { _ = try? Fixtures.run(["umount", "-l", directory]) }
        }
        return try body(directory)
    }

    /// Runs `body` in a forked child whose file-size limit is `limit` bytes (SIGXFSZ ignored, so writes past it
    /// fail with EFBIG) and returns its exit status; the child is killed by SIGALRM after 60 s, so the wait is bounded.
    static func inChildWithFileSizeLimit(_ limit: Int, _ body: () -> Int32) -> Int32 {
        let pid = fork()
        if pid == 0 {
            alarm(60)
            var bounds = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
            guard setrlimit(RLIMIT_FSIZE_VALUE, &bounds) == 0 else { _exit(90) }
            signal(SIGXFSZ, SIG_IGN)
            _exit(body())
        }
        guard pid > 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 1000 + (status & 0x7F)
    }
}

/// RLIMIT_FSIZE as setrlimit takes it (an enum in glibc's headers).
let RLIMIT_FSIZE_VALUE = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
