import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// FFmpeg opens only the containers and codecs voice messages come in: content that names other files or URLs
/// (concat lists, DASH and HLS manifests), game-music archives and codecs no voice message uses are
/// `.unsupported` at once, from `info` and from both decoders, whatever the file's name.
@Suite struct ContainerWhitelistTests {
    static let hostile: [(name: String, bytes: [UInt8], format: String)] = [
        ("concat.ogg", Array("ffconcat version 1.0\nfile secret.wav\n".utf8), "concat"),
        ("manifest.ogg", Array("""
            <?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" \
            mediaPresentationDuration="PT6S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">\
            <Period><AdaptationSet mimeType="audio/mpeg"><Representation id="1" bandwidth="64000">\
            <BaseURL>http://127.0.0.2:9/from-dash.mp3</BaseURL></Representation></AdaptationSet></Period></MPD>
            """.utf8), "dash"),
        ("playlist.mp3", Array("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.2:9/a.mp3\n#EXT-X-ENDLIST\n".utf8), "hls"),
    ]

    @Test(arguments: hostile.indices)
    func aContainerThatOpensOtherThingsIsUnsupported(index: Int) throws {
        let (name, content, format) = Self.hostile[index]
        let path = try writeTemporary(name, content)
        for purpose in [DecodePurpose.analysis, .playback] {
            let error = catching { _ = try Decoders.open(FileSource(path: path), purpose: purpose) }
            #expect(error?.status == .unsupported, "\(name) for \(purpose): \(String(describing: error))")
            #expect(error?.message.contains("(\(format))") == true, "\(String(describing: error))")
            #expect(error?.message.contains("is not a voice message format") == true)
        }
        #expect(catching { _ = try Decoders.info(of: MemorySource(bytes: content)) }?.status == .unsupported)
    }

    @Test func aGzipBodyIsRefusedBeforeAnythingIsUnpacked() throws {
        // 8 MiB of zeros in 8 KiB of gzip: libgme would unpack all of it in memory.
        let gzip = try Fixtures.run(["bash", "-c", "head -c 8388608 /dev/zero | gzip -9"])
        let error = catching { _ = try Decoders.info(of: MemorySource(bytes: Array(gzip))) }
        #expect(error?.status == .unsupported || error?.status == .format, "\(String(describing: error))")
        #expect(error?.status != .noMemory)
    }

    @Test func aCodecNoVoiceMessageUsesIsUnsupported() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = directory + "/yamaha.wav"
        _ = try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", try Fixtures.path(.wav), "-c:a", "adpcm_yamaha", path])
        let error = catching { _ = try Decoders.open(FileSource(path: path)) }
        #expect(error?.status == .unsupported, "\(String(describing: error))")
        #expect(error?.message.contains("adpcm_yamaha") == true, "\(String(describing: error))")
    }

    @Test(arguments: [Fixtures.Kind.aacADTS, .m4a, .mp3, .wav, .flac, .vorbis])
    func everyVoiceFormatStillOpens(kind: Fixtures.Kind) throws {
        let decoder = try Decoders.open(FileSource(path: Fixtures.path(kind)))
        #expect(decoder.info.duration > 0.5)
    }

    func catching(_ body: () throws -> Void) -> VoiceNoteError? {
        do { try body(); return nil } catch { return error as? VoiceNoteError ?? VoiceNoteError(.internal, "\(error)") }
    }
}
