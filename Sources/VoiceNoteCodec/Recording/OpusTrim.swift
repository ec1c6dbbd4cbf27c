#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteSources

/// Cuts an Ogg Opus take to a range, sample-exact and without re-encoding (RFC 7845 §4.2 and §4.5): the packets
/// are kept whole, from the one 80 ms before the cut (the pre-roll a decoder needs to converge) to the one holding
/// the end; the new pre-skip drops what comes before the cut and the last page's granule position ends the stream
/// at the end. The trimmed stream is written beside the file and renamed over it once complete and synced, so a
/// crash mid-trim leaves the original whole.
public enum OpusTrim {
    /// Samples of pre-roll kept before the cut (80 ms at 48 kHz, as RFC 7845 §4.6 recommends).
    public static let preRoll: Int64 = 3840

    /// Rewrites the Ogg Opus file at `path` to hold seconds `start` ..< `end` of its audio (after pre-skip).
    /// - Returns: the new length in 48 kHz samples (`end − start`, each rounded to samples).
    /// - Throws: `.invalidArgument` for a range that is not finite, empty or outside 0…length; `.unsupported` for a
    ///   stream with more than two channels (mapping family ≠ 0); `.format` for a file that is not whole Ogg Opus;
    ///   file statuses for reading and writing (the original is untouched then); `.cancelled` at the next packet once
    ///   `cancellation` is set (the original untouched too).
    @discardableResult
    public static func trim(_ path: String, start: Double, end: Double,
                            cancellation: CancellationFlag? = nil) throws(VoiceNoteError) -> Int64 {
        guard start.isFinite, end.isFinite, start >= 0, end > start, end < 1e7 else {
            throw VoiceNoteError(.invalidArgument, "a trim range is 0 ≤ start < end, finite, in seconds; not \(start)…\(end)")
        }
        let source = try FileSource(path: path)
        let plan = try Plan(source, name: path, first: Int64((start * 48_000).rounded()), last: Int64((end * 48_000).rounded()),
                            cancellation: cancellation)
        let (output, part) = try FileSystem.createAside(beside: path)
        do throws(VoiceNoteError) {
            try source.seek(to: 0)
            try plan.write(from: OpusPacketReader(source: source), to: OggWriter(output, name: part), cancellation: cancellation)
            do throws(Errno) { try output.sync(); try output.close() } catch {
                throw VoiceNoteError.fromErrno(error.code, "cannot write \(part)")
            }
            try FileSystem.rename(part, to: path)
        } catch {
            try? output.close()
            try? FileSystem.remove(part)
            throw error
        }
        return plan.last - plan.first
    }

    /// Which packets are kept and how the new stream counts: found in a first pass over the packets' durations.
    struct Plan {
        let header: OpusHeader
        /// The range in output samples (after the original pre-skip).
        let first: Int64, last: Int64
        /// The first and last packets kept, and the stream sample the first starts at.
        let firstPacket: Int, lastPacket: Int
        let origin: Int64

        init(_ source: ByteSource, name: String, first: Int64, last: Int64, cancellation: CancellationFlag?) throws(VoiceNoteError) {
            let reader = OpusPacketReader(source: source)
            var starts: [Int64] = []
            var position: Int64 = 0
            var timeline = OpusTimeline()
            while let packet = try reader.nextAudioPacket() {
                try cancellation?.check("the trim of \(name)")
                guard !packet.followsGap else { throw VoiceNoteError(.format, "\(name): a page is missing or damaged") }
                starts.append(position)
                position += Int64(OpusPacketDecoder.duration(of: packet.bytes))
                timeline.add(packet)
            }
            guard let header = reader.header, let serial = reader.serial else { throw VoiceNoteError(.format, "\(name): not an Ogg Opus stream") }
            guard header.mappingFamily == 0 else {
                throw VoiceNoteError(.unsupported, "\(name): only takes of one or two channels (mapping family 0) are trimmed")
            }
            let length = try OpusProbe(header: header, serial: serial, length: timeline.length(preSkip: header.preSkip, name),
                                       hasOtherStreams: false, size: 0).length
            guard last <= length else {
                throw VoiceNoteError(.invalidArgument, "the trim range ends at \(Double(last) / 48_000) s, after the take's \(Double(length) / 48_000) s")
            }
            let preSkip = Int64(header.preSkip)
            let keepFrom = max(0, first + preSkip - OpusTrim.preRoll)
            let keepTo = last + preSkip
            guard let firstPacket = starts.lastIndex(where: { $0 <= keepFrom }),
                  let lastPacket = starts.indices.last(where: { starts[$0] < keepTo }) else {
                throw VoiceNoteError(.format, "\(name): no audio packets")
            }
            guard first + preSkip - starts[firstPacket] <= 65_535 else {
                throw VoiceNoteError(.format, "\(name): its packets are too long to trim at \(Double(first) / 48_000) s")
            }
            self.header = header
            self.first = first
            self.last = last
            self.firstPacket = firstPacket
            self.lastPacket = lastPacket
            origin = starts[firstPacket]
        }

        /// The new stream: headers with the new pre-skip, then the kept packets, each page's granule position counted
        /// from the first kept packet, the last one the range's end.
        func write(from reader: OpusPacketReader, to writer: OggWriter, cancellation: CancellationFlag?) throws(VoiceNoteError) {
            var writer = writer
            try writer.writeHeaders(identification: identificationHeader(), comments: Self.commentHeader)
            let end = last + Int64(header.preSkip) - origin
            var index = 0
            var position: Int64 = 0
            while let packet = try reader.nextAudioPacket(), index <= lastPacket {
                defer { index += 1 }
                try cancellation?.check("the trim of a take")
                position += Int64(OpusPacketDecoder.duration(of: packet.bytes))
                guard index >= firstPacket else { continue }
                let isLast = index == lastPacket
                try writer.append(packet.bytes, granule: isLast ? end : position - origin, endOfStream: isLast)
            }
        }

        /// RFC 7845 §5.1, mapping family 0, with the new pre-skip.
        private func identificationHeader() -> [UInt8] {
            let preSkip = UInt16(first + Int64(header.preSkip) - origin)
            let rate = UInt32(max(0, header.inputSampleRate)), gain = UInt16(bitPattern: Int16(header.outputGain))
            return Array("OpusHead".utf8) + [1, UInt8(header.channels), UInt8(preSkip & 0xFF), UInt8(preSkip >> 8)]
                + (0..<4).map { UInt8(truncatingIfNeeded: rate >> (8 * $0)) } + [UInt8(gain & 0xFF), UInt8(gain >> 8), 0]
        }

        /// RFC 7845 §5.2: the vendor and no comments.
        static let commentHeader: [UInt8] = {
            let vendor = Array("voicenote".utf8)
            return Array("OpusTags".utf8) + [UInt8(vendor.count), 0, 0, 0] + vendor + [0, 0, 0, 0]
        }()
    }
}
