import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// The statuses of docs/errors.md for damaged and hostile input; nothing crashes, hangs or grows without bound.
@Suite struct BadInputTests {
    @Test func emptyFileIsFormat() throws {
        #expect(status { _ = try Decoders.open(FileSource(path: writeTemporary("empty.ogg", []))) } == .format)
    }

    @Test func textNamedOggIsFormat() throws {
        let text = Array(String(repeating: "this is not audio, just text in a file named .ogg\n", count: 200).utf8)
        #expect(status { _ = try Decoders.open(FileSource(path: writeTemporary("text.ogg", text))) } == .format)
    }

    @Test func wavNamedOggDecodesAsWav() throws {
        let path = try writeTemporary("really-a-wav.ogg", bytes(of: Fixtures.path(.wav)))
        let decoder = try Decoders.open(FileSource(path: path))
        #expect(decoder.info.codec == "pcm_s16le")
        #expect(try decodeAll(decoder).count > 48_000)
    }

    @Test func oggTruncatedMidPageDecodesWhatIsThere() throws {
        let whole = try bytes(of: Fixtures.path(.opus))
        let cut = Array(whole.prefix(whole.count * 6 / 10 + 17))
        let decoder = try Decoders.open(MemorySource(bytes: cut))
        let pcm = try decodeAll(decoder)
        let full = try decodeAll(openFixture(.opus))
        #expect(Int64(pcm.count) == decoder.exactFrameCount)
        #expect(pcm.count > full.count / 4 && pcm.count < full.count)
        #expect(Array(pcm.prefix(16_000)) == Array(full.prefix(16_000)))
    }

    /// Deterministic positions for damage.
    func scramble(_ bytes: inout [UInt8], range: Range<Int>, flips: Int, seed: UInt32) {
        var state = seed
        for _ in 0..<flips {
            state = state &* 1_103_515_245 &+ 12345
            bytes[range.lowerBound + Int(state >> 8) % range.count] ^= 0x5A
        }
    }

    @Test func flippedBytesInsidePacketsDecodeAroundTheDamage() throws {
        // Damage inside audio packets with valid page CRCs, so the Opus decoder itself meets the bad data.
        var pages = OggPage.parse(try bytes(of: Fixtures.path(.opus)))
        for index in 2..<pages.count {
            scramble(&pages[index].body, range: 0..<pages[index].body.count, flips: 40, seed: UInt32(index))
        }
        let path = try Fixtures.temporaryDirectory() + "/damaged-packets.ogg"
        try OggPage.write(pages, to: path)
        let decoder = try Decoders.open(FileSource(path: path))
        let pcm = try decodeAll(decoder)
        #expect(pcm.count > 0)
        #expect(Int64(pcm.count) <= decoder.exactFrameCount ?? 0)
    }

    @Test(arguments: [Fixtures.Kind.opus, .aacADTS, .mp3, .m4a, .flac, .vorbis, .wav])
    func flippedBytesAnywhereNeverCrash(kind: Fixtures.Kind) throws {
        var damaged = try bytes(of: Fixtures.path(kind))
        scramble(&damaged, range: 64..<damaged.count, flips: 60, seed: 7)
        // Damaged pages are dropped by their CRC, frames by their decoder: either something decodes or the file
        // is reported as not audio. Never another status, never a crash or a hang.
        let outcome = status { _ = try decodeAll(Decoders.open(MemorySource(bytes: damaged))) }
        #expect(outcome == nil || outcome == .format)
    }

    /// A FLAC whose STREAMINFO claims samples but whose frames are all damaged (headers intact, bodies not):
    /// nothing decodes, so `info`, the waveform's decoder and the player's all say `.format`; no exact length.
    @Test func aFLACWhoseFramesDoNotDecodeIsFormatEverywhere() throws {
        var bytes = try bytes(of: Fixtures.path(.flac))
        var position = 4
        while true {  // past the metadata blocks
            let last = bytes[position] & 0x80 != 0
            position += 4 + (Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3]))
            if last { break }
        }
        let syncs = (position..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xF8 }
        for (index, sync) in syncs.enumerated() {
            let end = index + 1 < syncs.count ? syncs[index + 1] : bytes.count
            for offset in (sync + 8)..<max(sync + 8, end - 2) { bytes[offset] ^= 0x5A }
        }
        let path = try writeTemporary("damaged-frames.flac", bytes)
        #expect(status { _ = try Decoders.info(of: FileSource(path: path)) } == .format)
        #expect(status { _ = try Decoders.open(FileSource(path: path), purpose: .analysis) } == .format)
        #expect(status { _ = try Decoders.open(FileSource(path: path), purpose: .playback) } == .format)
    }

    @Test func oggOpusWithoutAudioPacketsIsFormat() throws {
        let pages = OggPage.parse(try bytes(of: Fixtures.path(.opus)))
        let headersOnly = pages.prefix(2).map { page in var page = page; page.granule = 0; return page }
        let path = try Fixtures.temporaryDirectory() + "/headers-only.ogg"
        try OggPage.write(Array(headersOnly), to: path)
        #expect(status { _ = try Decoders.open(FileSource(path: path)) } == .format)
    }

    /// The real file with its identification header rewritten by `patch` (CRC recomputed).
    func withPatchedHeader(_ patch: (inout [UInt8]) -> Void) throws -> String {
        var pages = OggPage.parse(try bytes(of: Fixtures.path(.opus)))
        patch(&pages[0].body)
        let path = try Fixtures.temporaryDirectory() + "/patched.ogg"
        try OggPage.write(pages, to: path)
        return path
    }

    @Test(arguments: [0, 3, 200])
    func absurdChannelCountIsFormat(channels: Int) throws {
        let path = try withPatchedHeader { $0[9] = UInt8(channels) }
        #expect(status { _ = try Decoders.open(FileSource(path: path)) } == .format)
    }

    /// RFC 7845 allows any 16-bit pre-skip (early libopus 0.9 wrote large ones): 65535 samples play as opusdec plays
    /// them; only a pre-skip longer than the whole stream is `.format` (it leaves no audio).
    @Test func aPreSkipOf65535PlaysAsOpusdecPlaysIt() throws {
        let path = try withPatchedHeader { $0[10] = 0xFF; $0[11] = 0xFF }
        let reference = try Fixtures.temporaryDirectory() + "/reference.wav"
        _ = try Fixtures.run(["opusdec", "--quiet", "--rate", "48000", path, reference])
        let expected = (try bytes(of: reference).count - 44) / 2 / (try Decoders.info(of: FileSource(path: path))).channels
        for purpose in [DecodePurpose.playback] {  // 48 kHz, as opusdec decodes
            let decoder = try Decoders.open(FileSource(path: path), purpose: purpose)
            #expect(decoder.info.duration > 0)
            let frames = try decodeAll(decoder).count / decoder.outputChannels
            #expect(abs(frames - expected) <= 1, "ours \(frames), opusdec \(expected) frames")
        }
        let info = try Decoders.info(of: FileSource(path: path))
        #expect(abs(info.duration - Double(expected) / 48_000) < 0.001)
    }

    @Test func aPreSkipLongerThanTheStreamIsFormat() throws {
        let directory = try Fixtures.temporaryDirectory()
        let short = try writeTemporaryOpus(seconds: 1, in: directory)  // 48,000 samples, less than 65,535
        var pages = OggPage.parse(try bytes(of: short))
        pages[0].body[10] = 0xFF
        pages[0].body[11] = 0xFF
        try OggPage.write(pages, to: directory + "/short-patched.ogg")
        #expect(status { _ = try Decoders.open(FileSource(path: directory + "/short-patched.ogg")) } == .format)
    }

    func writeTemporaryOpus(seconds: Double, in directory: String) throws -> String {
        let wav = directory + "/tone.wav", ogg = directory + "/tone.ogg"
        _ = try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "\(seconds)", "sine", "440"])
        _ = try Fixtures.run(["opusenc", "--quiet", wav, ogg])
        return ogg
    }

    @Test func tenMegabyteCommentHeaderDecodes() throws {
        var pages = OggPage.parse(try bytes(of: Fixtures.path(.opus)))
        let serial = pages[0].serial
        var tags = Array("OpusTags".utf8) + [6, 0, 0, 0] + Array("vntest".utf8) + [1, 0, 0, 0]
        let comment = Array("COMMENT=".utf8) + [UInt8](repeating: 0x61, count: 10 * 1024 * 1024)
        let length = UInt32(comment.count)
        tags += (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * UInt32($0))) } + comment
        let tagPages = OggPage.pages(for: tags, serial: serial, firstSequence: 1, granule: 0)
        var rebuilt = [pages[0]] + tagPages
        let audio = pages.dropFirst(2)
        for (offset, var page) in audio.enumerated() {
            page.sequence = UInt32(1 + tagPages.count + offset)
            rebuilt.append(page)
        }
        pages = rebuilt
        let path = try Fixtures.temporaryDirectory() + "/big-comment.ogg"
        try OggPage.write(pages, to: path)
        let decoder = try Decoders.open(FileSource(path: path))
        let pcm = try decodeAll(decoder)
        #expect(pcm == (try decodeAll(openFixture(.opus))))
    }

    @Test func missingFileIsNotFound() {
        #expect(status { _ = try FileSource(path: "/nonexistent/voicenote/none.ogg") } == .notFound)
    }

    @Test func directoryIsInvalidArgument() throws {
        let directory = try Fixtures.temporaryDirectory()
        #expect(status { _ = try FileSource(path: directory) } == .invalidArgument)
    }

    @Test func failingHostReadIsIO() throws {
        let file = try bytes(of: Fixtures.path(.opus))
        var offset = 0
        let failing = CallbackSource(name: "host", size: Int64(file.count), read: { buffer in
            guard offset < 20_000 else { return -1 }
            let count = min(buffer.count, 4096)
            file.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
            offset += count
            return count
        }, seek: { target in offset = Int(target); return true })
        #expect(status { _ = try decodeAll(Decoders.open(failing)) } == .io)
    }

    @Test func failingHostReadIsIOForFFmpegFormats() throws {
        let file = try bytes(of: Fixtures.path(.mp3))
        var offset = 0
        let failing = CallbackSource(name: "host", size: Int64(file.count), read: { buffer in
            guard offset < 8_000 else { return -1 }
            let count = min(buffer.count, 4096, file.count - offset)
            file.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
            offset += count
            return count
        }, seek: { target in offset = Int(target); return true })
        #expect(status { _ = try decodeAll(Decoders.open(failing)) } == .io)
    }
}

/// Inputs the fuzzer found, kept as regressions (Tests/Fixtures/fuzz).
@Suite struct FuzzRegressionTests {
    /// A committed fuzz finding, found from this source file's place in the tree.
    static func finding(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz/\(name)").path
    }

    @Test func aacWhoseChannelLayoutChangesMidStreamDoesNotCrash() throws {
        let path = Self.finding("aac-channel-layout-changes.bin")
        let outcome = status { _ = try decodeAll(Decoders.open(FileSource(path: path))) }
        #expect(outcome == nil || outcome == .format)
    }
}
