import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport

/// What a note may cost, for a download played as it arrives (docs/errors.md): libopusfile reads it forward, so a
/// chained file's later links are held to their bytes as they are decoded.
@Suite struct HonestDownloadTests {
    /// A real first link, then 64 pages of 2-byte packets that each claim 120 ms (33 min in 50 KB), served without
    /// ranges at 20 kB/s: the player's decoder plays the first link and refuses the second a few pages in, while
    /// the download still has seconds to run.
    @Test func aChainedDownloadWhoseSecondLinkClaimsTooMuchIsRefusedAsItArrives() throws {
        let first = try Array(Data(contentsOf: URL(fileURLWithPath: Fixtures.path(.opus))))
        let serial = try #require(OggPage.parse(first).first).serial &+ 1
        let note = first + HostileNotes.opusLink(serial: serial, pages: 64)
        let directory = try Fixtures.temporaryDirectory()
        try Data(note).write(to: URL(fileURLWithPath: directory + "/chained.ogg"))
        let server = try HTTPTestServer(root: directory)
        let source = try URLSource(url: server.url("/pacednorange/20000/chained.ogg"))
        let decoder = try Decoders.open(source, purpose: .playback)
        #expect(decoder.info.durationIsEstimate)  // opened while arriving: the progressive decoder
        var frames = 0
        let error = #expect(throws: VoiceNoteError.self) {
            while try decoder.decodeNext({ frames += $0.frames }) {}
        }
        #expect(error?.status == .format && error?.message.contains("honestly hold") == true, "\(String(describing: error))")
        #expect(!source.isComplete)  // refused before it all arrived
        #expect(frames > 48_000)  // the first link played
    }
}
