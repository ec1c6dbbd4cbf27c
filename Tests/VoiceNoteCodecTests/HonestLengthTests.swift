import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// What a note may cost (docs/errors.md): a file whose packets claim more audio than their bytes can honestly hold
/// is refused by info and by the decoders the waveform, conversion and the player open, before or as it is decoded;
/// ten minutes of digital silence from every encoder that writes voice-note formats (the sparsest honest audio
/// there is) still decodes whole.
@Suite struct HonestLengthTests {
    enum Call: String, CaseIterable { case info, analysis, playback }

    /// What `call` answers for `bytes`: nil when the note opens and decodes to its end.
    static func failure(_ call: Call, _ bytes: [UInt8]) -> VoiceNoteError? {
        do {
            let source = MemorySource(bytes: bytes, name: "hostile")
            switch call {
            case .info: _ = try Decoders.info(of: source)
            case .analysis: _ = try decodeAll(Decoders.open(source, purpose: .analysis))
            case .playback: _ = try decodeAll(Decoders.open(source, purpose: .playback))
            }
            return nil
        } catch let error as VoiceNoteError {
            return error
        } catch {
            return VoiceNoteError(.internal, "\(error)")
        }
    }

    /// The seconds an excess message says the packets claimed where reading stopped.
    static func claimedSeconds(_ message: String) -> Double? {
        guard let range = message.range(of: #"claim (\d+\.\d) s"#, options: .regularExpression) else { return nil }
        return Double(message[range].dropFirst("claim ".count).dropLast(2))
    }

    /// Frames of 65,535 constant samples at 8 kHz, 14 bytes each (630 ms a byte, FLAC's bound is 100): refused after
    /// a few of its 1,000 frames (8,192 s claimed), by the packet scan when STREAMINFO states the length.
    @Test(arguments: Call.allCases)
    func aFLACOfMaximalConstantFramesIsRefused(call: Call) throws {
        let note = HostileNotes.flac(frames: 1_000)
        let error = try #require(Self.failure(call, note))
        #expect(error.status == .format && error.message.contains("honestly hold"), "\(error)")
        #expect(try #require(Self.claimedSeconds(error.message)) < 200, "\(error)")  // read no further
    }

    /// Without a stated length (STREAMINFO says 0) nothing is counted before decoding, and info answers at once; the
    /// decoders refuse it as they decode, a few frames in.
    @Test(arguments: [Call.analysis, .playback])
    func aFLACWithoutALengthIsRefusedAsItIsDecoded(call: Call) throws {
        let note = HostileNotes.flac(frames: 1_000, declared: false)
        let error = try #require(Self.failure(call, note))
        #expect(error.status == .format && error.message.contains("honestly hold"), "\(error)")
        #expect(try #require(Self.claimedSeconds(error.message)) < 200, "\(error)")
    }

    /// The same frames at 1 Hz are counted at 8 kHz: 65,535 samples are not 18 hours of silence in 14 bytes, but
    /// they are still too many.
    @Test func aFLACBelow8kHzIsCountedAt8kHz() throws {
        let note = HostileNotes.flac(frames: 1_000, sampleRate: 1)
        let error = try #require(Self.failure(.info, note))
        #expect(error.status == .format && error.message.contains("honestly hold"), "\(error)")
    }

    /// ADTS cannot claim more than silence costs: the least frame FFmpeg decodes is a silent channel element in 4
    /// bytes after the header, what its encoder writes for silence (11.6 ms a byte at 8 kHz, within AAC's bound).
    /// Frames without a channel element (only the end marker) or stating 4 raw blocks (4,096 samples in 11 bytes, 46
    /// ms a byte) leave FFmpeg without a sample rate: refused as well, whatever the frame walk counts.
    @Test(arguments: Call.allCases)
    func anADTSStreamOfMinimalFramesIsRefused(call: Call) throws {
        for note in [HostileNotes.adts(frames: 20_000, blocks: 4, raw: [0, 0, 0, 0]),
                     HostileNotes.adts(frames: 20_000, blocks: 1, raw: [0xE0])] {
            let error = try #require(Self.failure(call, note))
            #expect(error.status == .format, "\(error)")
        }
    }

    /// A real first link, then a link of 2-byte packets that each claim 120 ms (8 pages, 245 s in 6 KiB): opusfile
    /// decodes chained files, and its links after the first are held to their bytes.
    @Test(arguments: Call.allCases)
    func aChainedOggWhoseSecondLinkClaimsTooMuchIsRefused(call: Call) throws {
        let first = try bytes(of: Fixtures.path(.opus))
        let serial = try #require(OggPage.parse(first).first).serial &+ 1
        let note = first + HostileNotes.opusLink(serial: serial, pages: 8)
        let error = try #require(Self.failure(call, note))
        #expect(error.status == .format && error.message.contains("honestly hold"), "\(error)")
    }

    /// Two seconds of such a link is within the 60 s any note may hold whatever its bytes.
    @Test func aChainedOggWithAShortEmptyLinkIsRead() throws {
        let first = try bytes(of: Fixtures.path(.opus))
        let serial = try #require(OggPage.parse(first).first).serial &+ 1
        let note = first + HostileNotes.opusLink(serial: serial, pages: 1)
        #expect(Self.failure(.info, note) == nil)
        #expect(Self.failure(.playback, note) == nil)
    }

    /// Ten minutes of digital silence by each encoder, at its sparsest (docs/errors.md lists what each is a byte).
    static let silences: [String: [String]] = [
        "ffmpeg-8k.flac": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "flac"],
        "ffmpeg-4608-8k.flac": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "flac",
                                "-frame_size", "4608"],
        "ffmpeg-48k.flac": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "600", "-c:a", "flac"],
        "ffmpeg-8k.aac": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "aac", "-f", "adts"],
        "ffmpeg-8k.m4a": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "aac"],
        "lame-8k.mp3": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "libmp3lame", "-b:a", "8k"],
        "vorbis-8k.ogg": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "libvorbis", "-q:a", "-1"],
        "alac-8k.m4a": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "alac"],
        "speex-dtx-8k.ogg": ["ffmpeg", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600", "-c:a", "libspeex",
                             "-vad", "1", "-dtx", "1"],
        "sox-8k.flac": ["sox", "-D", "-n", "-r", "8000", "-c", "1", "-b", "16", "-C", "8"],
        "sox-4k.flac": ["sox", "-D", "-n", "-r", "4000", "-c", "1", "-b", "16", "-C", "8"],
    ]

    /// Writes the silence `name` (an encoder's command, the output path last) into `directory`.
    static func makeSilence(_ name: String, in directory: String) throws -> String {
        let path = directory + "/" + name
        let command = try #require(silences[name])
        if command[0] == "sox" {
            try Fixtures.run(command + [path, "trim", "0", "600"])
        } else {
            try Fixtures.run([command[0], "-nostdin", "-v", "error"] + command.dropFirst() + [path])
        }
        return path
    }

    @Test(arguments: silences.keys.sorted())
    func tenMinutesOfSilenceFromAnHonestEncoderDecode(name: String) throws {
        let path = try Self.makeSilence(name, in: Fixtures.temporaryDirectory())
        let info = try Decoders.info(of: FileSource(path: path))
        #expect(abs(info.duration - 600) < 1, "\(name): \(info)")
        for purpose in [DecodePurpose.analysis, .playback] {
            let decoder = try Decoders.open(FileSource(path: path), purpose: purpose)
            let frames = try decodeAll(decoder).count / decoder.outputChannels
            #expect(abs(Double(frames) / Double(decoder.outputRate) - 600) < 1, "\(name): \(frames) frames")
        }
    }

    /// libopus's DTX at 6 kbit/s in 60 ms frames (opusenc's sparsest note, 13.6 ms a byte with its pages), five
    /// minutes of silence in each of two chained links.
    @Test func aChainedNoteOfDTXSilenceDecodes() throws {
        let directory = try Fixtures.temporaryDirectory()
        let wav = directory + "/silence.wav"
        try Fixtures.run(["sox", "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", wav, "trim", "0", "300"])
        var note: [UInt8] = []
        for serial in ["11", "12"] {
            let link = directory + "/link\(serial).opus"
            try Fixtures.run(["opusenc", "--quiet", "--serial", serial, "--bitrate", "6", "--framesize", "60",
                              "--set-ctl-int", "4016=1", wav, link])
            note += try bytes(of: link)
        }
        let path = try writeTemporary("dtx-chained.opus", note)
        #expect(abs(try Decoders.info(of: FileSource(path: path)).duration - 600) < 1)
        let decoder = try Decoders.open(FileSource(path: path), purpose: .playback)
        #expect(abs(Double(try decodeAll(decoder).count) / 48_000 - 600) < 1)
    }
}
