import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

@Suite struct DecoderSelectionTests {
    /// Length of the speech fixture, from the WAV itself.
    func speechSeconds() throws -> Double {
        let wav = try FileSource(path: Fixtures.path(.wav))
        return Double((wav.size ?? 44) - 44) / 2 / 48_000
    }

    @Test(arguments: [
        (Fixtures.Kind.opus, "opus", 1, false), (.opusStereo, "opus", 2, false), (.opusSurround, "opus", 6, false),
        (.aacADTS, "aac", 1, false), (.m4a, "aac", 1, false), (.mp3, "mp3", 1, false), (.wav, "pcm_s16le", 1, false),
        (.flac, "flac", 1, false), (.vorbis, "vorbis", 1, false),
    ])
    func infoComesFromTheContainer(kind: Fixtures.Kind, codec: String, channels: Int, estimate: Bool) throws {
        let info = try Decoders.info(of: FileSource(path: Fixtures.path(kind)))
        #expect(info.codec == codec)
        #expect(info.channels == channels)
        #expect(info.sampleRate == 48_000)
        #expect(info.durationIsEstimate == estimate)
        #expect(abs(info.duration - (try speechSeconds())) < (estimate ? 0.5 : 0.06))
        #expect(info.bitrate > 0)
    }

    @Test func opusAnalysisDecodesAt16kExactlyTheGranuleLength() throws {
        let decoder = try openFixture(.opus)
        #expect(decoder.outputRate == 16_000)
        let pcm = try decodeAll(decoder)
        #expect(Int64(pcm.count) == decoder.exactFrameCount)
        #expect(abs(Double(pcm.count) / 16_000 - decoder.info.duration) < 0.001)
        let reference = try Fixtures.referencePCM(Fixtures.path(.opus), rate: 16_000, channels: 1)
        #expect(abs(reference.count - pcm.count) <= 16)
        #expect(correlation(pcm, reference) > 0.9)
    }

    @Test func opusPlaybackGoesThroughOpusfileAt48k() throws {
        let decoder = try openFixture(.opus, purpose: .playback)
        #expect(decoder.outputRate == 48_000)
        let pcm = try decodeAll(decoder)
        #expect(Int64(pcm.count) == decoder.exactFrameCount)
        let reference = try Fixtures.referencePCM(Fixtures.path(.wav), rate: 48_000, channels: 1)
        #expect(abs(pcm.count - reference.count) <= 960)
    }

    @Test func surroundAndChainedOpusGoThroughOpusfile() throws {
        let surround = try openFixture(.opusSurround)
        #expect(surround.outputRate == 48_000 && surround.outputChannels == 6)
        #expect(Int64(try decodeAll(surround).count / 6) == surround.exactFrameCount)

        let single = try openFixture(.opus, purpose: .playback).exactFrameCount ?? 0
        let chained = try openFixture(.opusChained)
        #expect(chained.outputRate == 48_000)
        let frames = Int64(try decodeAll(chained).count)
        #expect(frames == chained.exactFrameCount)
        #expect(frames > single + 48_000)
    }

    @Test(arguments: [Fixtures.Kind.aacADTS, .m4a, .mp3, .wav, .flac, .vorbis])
    func ffmpegFormatsDecodeToTheReference(kind: Fixtures.Kind) throws {
        let decoder = try openFixture(kind)
        #expect(decoder.outputRate == 48_000 && decoder.outputChannels == 1)
        let pcm = try decodeAll(decoder)
        let reference = try Fixtures.referencePCM(Fixtures.path(kind), rate: 48_000, channels: 1)
        #expect(abs(pcm.count - reference.count) <= 2048)
        #expect(correlation(pcm, reference) > 0.99)
    }

    @Test func memoryAndCallbackSourcesMatchTheFile() throws {
        let file = try bytes(of: Fixtures.path(.opus))
        let fromFile = try decodeAll(openFixture(.opus))
        #expect(try decodeAll(Decoders.open(MemorySource(bytes: file))) == fromFile)
        var offset = 0
        let callbacks = CallbackSource(name: "host", size: Int64(file.count), read: { buffer in
            let count = min(buffer.count, file.count - offset)
            file.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
            offset += count
            return count
        }, seek: { target in offset = Int(target); return target <= file.count })
        #expect(try decodeAll(Decoders.open(callbacks)) == fromFile)
    }
}

@Suite struct UnknownSizeSourceTests {
    /// A host source that can seek but does not know its size.
    func unsizedSource(_ kind: Fixtures.Kind) throws -> CallbackSource {
        let file = try bytes(of: Fixtures.path(kind))
        var offset = 0
        return CallbackSource(name: "unsized", size: nil, read: { buffer in
            let count = max(0, min(buffer.count, file.count - offset))
            if count > 0 { file.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) } }
            offset += count
            return count
        }, seek: { target in offset = Int(target); return true })
    }

    @Test func oggOpusOfUnknownSizeDecodesToTheSameLength() throws {
        let decoder = try Decoders.open(unsizedSource(.opus))
        let known = try openFixture(.opus)
        #expect(decoder.exactFrameCount == known.exactFrameCount)
        #expect(try decodeAll(decoder) == decodeAll(known))
        #expect(abs(decoder.info.duration - known.info.duration) < 1e-9)
    }

    @Test(arguments: [Fixtures.Kind.wav, .flac])
    func losslessFormatsKnowTheirFrameCount(kind: Fixtures.Kind) throws {
        let decoder = try openFixture(kind)
        #expect(decoder.exactFrameCount == Int64(try decodeAll(decoder).count))
    }
}
