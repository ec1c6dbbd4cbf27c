#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteSources

/// A `.part` file made into a finished recording.
public struct RecoveredRecording: Sendable, Equatable {
    /// The final path: the `.part` path without ".part".
    public var path: String
    /// Seconds of audio kept.
    public var duration: Double
    /// The file size in bytes after repair.
    public var size: Int64

    /// Makes a recovered-recording record.
    public init(path: String, duration: Double, size: Int64) {
        self.path = path
        self.duration = duration
        self.size = size
    }
}

/// Makes the `.part` files a crash left (docs/recorder.md, "why nothing captured is lost") into valid finished recordings: keeps
/// every whole, intact page or frame from the start, cuts the rest, ends the stream properly and renames the file.
/// A file an encoder still writes (in this process or another) is left alone: it holds a flock(2).
public enum RecordingRecovery {
    /// The suffix of a recording that is being written.
    public static let partSuffix = ".part"

    /// The path a take's part file has once it is whole (`"<x>.ogg.part"` → `"<x>.ogg"`), or nil when `path` does not
    /// end in `partSuffix`.
    public static func finishedPath(of path: String) -> String? {
        path.hasSuffix(partSuffix) ? String(path.dropLast(partSuffix.count)) : nil
    }

    /// Repairs `"<x>.ogg.part"` into `"<x>.ogg"` or `"<x>.aac.part"` into `"<x>.aac"`.
    ///
    /// Ogg Opus: keeps the whole, CRC-valid pages of the Opus stream from the start (the first damaged, truncated
    /// or foreign page ends it), marks the last kept page end-of-stream (recomputing its CRC), cuts the file there.
    /// Duration: (last granule − pre-skip) / 48000. ADTS: keeps whole frames (sync word, consistent header, full
    /// length); duration: raw data blocks × 1024 / rate, the encoder's 1024-sample priming included, as players
    /// decode ADTS.
    ///
    /// - Throws: `.invalidArgument` for a path not ending in ".part" or not a regular file; `.unsupported` for a
    ///   `.part` of another format; `.format` when no audio survives (the file is left as it is); `.busy` while it
    ///   is still being recorded; `.io` when the final name exists already; file errors by their errno.
    public static func recover(partPath: String) throws(VoiceNoteError) -> RecoveredRecording {
        guard let finalPath = finishedPath(of: partPath) else {
            throw VoiceNoteError(.invalidArgument, "\(partPath) does not end in \(partSuffix)")
        }
        let format: RecordingFormat
        if finalPath.hasSuffix("." + RecordingFormat.opus.fileExtension) {
            format = .opus
        } else if finalPath.hasSuffix("." + RecordingFormat.aac.fileExtension) {
            format = .aac
        } else {
            throw VoiceNoteError(.unsupported, "\(partPath) is not an .ogg.part or .aac.part recording")
        }
        let file = try RecordingFile(repairing: partPath)
        let kept = switch format {
        case .opus: try keptOpus(file)
        case .aac: try keptADTS(file)
        }
        if let patch = kept.patch { try file.overwrite(at: patch.offset, patch.bytes) }
        if kept.length < file.size { try file.truncate(to: kept.length) }
        try file.close()
        do throws(VoiceNoteError) {
            try FileSystem.renameWithoutReplacing(partPath, to: finalPath)
        } catch {
            throw VoiceNoteError(error.status, "cannot recover \(partPath): \(error.message)")
        }
        FileSystem.syncDirectory(of: finalPath)
        return RecoveredRecording(path: finalPath, duration: kept.duration, size: kept.length)
    }

    /// Recovers every `*.part` file in `directory` (in name order) and reports each: recovered, or failed with its
    /// error (the file then stays as it was). A missing directory has nothing to recover; one that cannot be read is
    /// reported as a failure of its own path.
    public static func recoverDirectory(_ directory: String) -> (recovered: [RecoveredRecording], failed: [(path: String, error: VoiceNoteError)]) {
        var recovered: [RecoveredRecording] = []
        var failed: [(path: String, error: VoiceNoteError)] = []
        let names: [String]
        do throws(VoiceNoteError) {
            names = try partNames(in: directory)
        } catch {
            if error.status != .notFound { failed.append((directory, error)) }
            return (recovered, failed)
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        for name in names {
            do throws(VoiceNoteError) {
                recovered.append(try recover(partPath: prefix + name))
            } catch {
                failed.append((prefix + name, error))
            }
        }
        return (recovered, failed)
    }

    // MARK: Scanning

    /// What to keep of a `.part`: its length, the duration, and the bytes that change within it.
    private struct Kept {
        var length: Int64
        var duration: Double
        var patch: (offset: Int64, bytes: [UInt8])?
    }

    private static func keptOpus(_ file: RecordingFile) throws(VoiceNoteError) -> Kept {
        let source = try FileSource(path: file.path)
        var header: OpusHeader?
        var serial: Int32 = 0
        var nextSequence = 0
        var lastComplete: OggReader.PageLocation?
        try OggReader.contiguousPages(of: source) { (page: OggReader.PageLocation, body: UnsafeRawBufferPointer) throws(VoiceNoteError) -> Bool in
            if header == nil {
                guard page.isBeginningOfStream, OpusHeader.isHeader(body) else { return false }
                header = try OpusHeader(packet: body)
                serial = page.serial
            } else {
                guard page.serial == serial, page.sequence == nextSequence, !page.isBeginningOfStream else { return false }
            }
            nextSequence = page.sequence + 1
            if page.granule != -1 { lastComplete = page }  // a packet ends on it
            return !page.isEndOfStream
        }
        guard let header else { throw VoiceNoteError(.format, "\(file.path): no Ogg Opus stream at its start") }
        guard let last = lastComplete, last.granule > Int64(header.preSkip) else {
            throw VoiceNoteError(.format, "\(file.path): no audio page survived")
        }
        var kept = Kept(length: last.end, duration: Double(last.granule - Int64(header.preSkip)) / 48_000)
        if !last.isEndOfStream {
            let page = try file.read(at: last.offset, count: last.length)
            kept.patch = (last.offset, OggReader.markingEndOfStream(page))
        }
        return kept
    }

    /// AAC sampling-frequency indices (ISO 14496-3 §1.6.3.4).
    private static let adtsRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    private static func keptADTS(_ file: RecordingFile) throws(VoiceNoteError) -> Kept {
        let reader = try ChunkedReader(path: file.path)
        var offset: Int64 = 0
        var blocks = 0
        var rate = 0
        var signature: (profile: UInt8, rateIndex: UInt8, channels: UInt8)?
        while let header = try reader.bytes(at: offset, count: 7) {
            guard header[0] == 0xFF, header[1] & 0xF6 == 0xF0 else { break }  // sync word, layer 0
            let profile = header[2] >> 6
            let rateIndex = (header[2] >> 2) & 0x0F
            let channels = (header[2] & 0x01) << 2 | header[3] >> 6
            let length = Int(header[3] & 0x03) << 11 | Int(header[4]) << 3 | Int(header[5]) >> 5
            let headerLength = header[1] & 0x01 == 0 ? 9 : 7  // with or without CRC
            guard Int(rateIndex) < adtsRates.count, length > headerLength,
                  offset + Int64(length) <= reader.size else { break }
            if let signature {
                guard signature == (profile, rateIndex, channels) else { break }
            } else {
                signature = (profile, rateIndex, channels)
                rate = adtsRates[Int(rateIndex)]
            }
            blocks += Int(header[6] & 0x03) + 1
            offset += Int64(length)
        }
        guard blocks > 0, rate > 0 else { throw VoiceNoteError(.format, "\(file.path): no whole ADTS frame") }
        return Kept(length: offset, duration: Double(blocks * 1024) / Double(rate))
    }

    /// Names of the `.part` regular files in `directory`, sorted.
    private static func partNames(in directory: String) throws(VoiceNoteError) -> [String] {
        try FileSystem.regularFiles(in: directory).filter { $0.hasSuffix(partSuffix) && $0.count > partSuffix.count }
    }
}

/// Reads a file in 64 KiB windows for a scan that looks at a few bytes here and there (ADTS headers).
private final class ChunkedReader {
    let size: Int64
    private let source: FileSource
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0
    private static let chunk = 64 * 1024

    init(path: String) throws(VoiceNoteError) {
        source = try FileSource(path: path)
        size = source.size ?? 0
    }

    /// `count` bytes at `offset`, or nil when the file ends before them.
    func bytes(at offset: Int64, count: Int) throws(VoiceNoteError) -> [UInt8]? {
        guard offset + Int64(count) <= size else { return nil }
        if offset < windowStart || offset + Int64(count) > windowStart + Int64(window.count) {
            try source.seek(to: offset)
            window = try source.readPrefix(count: max(Self.chunk, count))
            windowStart = offset
            guard window.count >= count else { return nil }
        }
        let start = Int(offset - windowStart)
        return Array(window[start..<(start + count)])
    }
}
