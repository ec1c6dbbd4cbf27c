import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteWaveform
import VoiceNoteSources

/// Damaged and lying files: `info` and `waveform` follow one rule, so they give the same answer. Either both fail
/// with the same status, or info's duration is the length the waveform's decoder produces (within one frame).
/// The rule: a header page (OpusHead, OpusTags) with a bad or missing CRC is `.format`, as libopusfile treats it;
/// a declared length longer than the packets hold becomes what they hold; nothing usable is `.format`.
@Suite struct InfoWaveformAgreementTests {
    /// Checks that info and the waveform agree on `path`, and that the answer is `expected` (nil: values).
    /// Returns info's duration when both succeeded.
    @discardableResult
    func expectAgreement(_ path: String, expected: Status?, sourceLocation: SourceLocation = #_sourceLocation) throws -> Double? {
        let info = Result { () throws(VoiceNoteError) in try Decoders.info(of: FileSource(path: path)) }
        let waveform = Result { () throws(VoiceNoteError) in try WaveformAnalysis.waveform(of: FileSource(path: path)) }
        switch (info, waveform) {
        case (.failure(let infoError), .failure(let waveformError)):
            #expect(infoError.status == waveformError.status, "info: \(infoError), waveform: \(waveformError)",
                    sourceLocation: sourceLocation)
            #expect(infoError.status == expected, "\(infoError)", sourceLocation: sourceLocation)
            return nil
        case (.success(let facts), .success(let values)):
            #expect(expected == nil, "both succeeded", sourceLocation: sourceLocation)
            #expect(values.count == Waveform.defaultSampleCount, sourceLocation: sourceLocation)
            let decoder = try Decoders.open(FileSource(path: path), purpose: .analysis)
            var frames = 0
            while try decoder.decodeNext({ frames += $0.frames }) {}
            let oneFrame = 1 / Double(decoder.outputRate)
            let decoded = Double(frames) * oneFrame
            #expect(abs(facts.duration - decoded) <= oneFrame + 1e-9,
                    "info says \(facts.duration) s, the waveform's decoder made \(decoded) s", sourceLocation: sourceLocation)
            #expect(decoder.exactFrameCount.map { Int($0) == frames } ?? true, sourceLocation: sourceLocation)
            return facts.duration
        default:
            Issue.record("info: \(info), waveform: \(waveform)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The Opus fixture's pages, changed by `change`, written with correct CRCs except where `damageCRC` says.
    func opusFile(_ name: String, of kind: Fixtures.Kind = .opus, damageCRC: (page: Int, crc: [UInt8])? = nil,
                  _ change: (inout [OggPage]) -> Void = { _ in }) throws -> String {
        var pages = OggPage.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(kind)))))
        change(&pages)
        var bytes: [UInt8] = []
        for (index, page) in pages.enumerated() {
            var pageBytes = page.bytes
            if let damageCRC, damageCRC.page == index { pageBytes.replaceSubrange(22..<26, with: damageCRC.crc) }
            bytes += pageBytes
        }
        let path = try Fixtures.temporaryDirectory() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theUndamagedFixturesAgree() throws {
        for kind in [Fixtures.Kind.opus, .opusSurround, .flac, .wav] {
            try expectAgreement(Fixtures.path(kind), expected: nil)
        }
    }

    @Test func commentHeaderPageWithBadCRCIsFormatForBoth() throws {
        try expectAgreement(opusFile("bad-crc-tags.ogg", damageCRC: (1, [0xEF, 0xBE, 0xAD, 0xDE])), expected: .format)
    }

    @Test func commentHeaderPageWithZeroedCRCIsFormatForBoth() throws {
        try expectAgreement(opusFile("no-crc-tags.ogg", damageCRC: (1, [0, 0, 0, 0])), expected: .format)
    }

    @Test func identificationHeaderWithBadCRCIsFormatForBoth() throws {
        try expectAgreement(opusFile("bad-crc-head.ogg", damageCRC: (0, [0, 0, 0, 0])), expected: .format)
    }

    @Test func identificationHeaderLibopusfileRefusesIsFormatForBoth() throws {
        // Version 1 defines 19 bytes for family 0; opus_head_parse refuses a longer header.
        try expectAgreement(opusFile("long-head.ogg") { pages in
            pages[0].body.append(0)
            pages[0].segments = [UInt8(pages[0].body.count)]
        }, expected: .format)
    }

    @Test func firstAudioPageWhoseGranuleIsBelowItsAudioIsFormatForBoth() throws {
        // RFC 7845 §4: such a stream is invalid; libopusfile refuses it (OP_EBADTIMESTAMP).
        try expectAgreement(opusFile("first-granule-too-small.ogg") { $0[2].granule = 1000 }, expected: .format)
    }

    @Test func granulesGoingBackwardsToBeforeTheStartAreFormatForBoth() throws {
        let path = try opusFile("reversed-granules.ogg") { pages in
            let granules = pages[2...].map(\.granule)
            for (index, granule) in zip(pages.indices.dropFirst(2), granules.reversed()) { pages[index].granule = granule }
        }
        try expectAgreement(path, expected: .format)
    }

    @Test func aMiddleGranuleGoingBackwardsGivesOneLength() throws {
        let path = try opusFile("middle-granule-back.ogg") { pages in pages[3].granule = pages[2].granule - 960 }
        let duration = try expectAgreement(path, expected: nil)
        let fixture = try Decoders.info(of: FileSource(path: Fixtures.path(.opus))).duration
        #expect(duration == fixture)
    }

    @Test func lastGranuleGoingBackwardsShortensBoth() throws {
        let path = try opusFile("last-granule-back.ogg") { pages in
            pages[pages.count - 1].granule = pages[pages.count - 2].granule - 20_000
        }
        let duration = try #require(try expectAgreement(path, expected: nil))
        let fixture = try Decoders.info(of: FileSource(path: Fixtures.path(.opus))).duration
        #expect(duration < fixture - 0.4)
    }

    @Test(arguments: [Fixtures.Kind.opus, .opusSurround])
    func absurdLastGranuleBecomesWhatThePacketsHold(kind: Fixtures.Kind) throws {
        // 96,076,792,050,575 s claimed by a file of a few seconds.
        let path = try opusFile("absurd-granule.ogg", of: kind) { pages in
            pages[pages.count - 1].granule = 96_076_792_050_575 * 48_000
        }
        let duration = try #require(try expectAgreement(path, expected: nil))
        let fixture = try Decoders.info(of: FileSource(path: Fixtures.path(kind))).duration
        // The packets hold the fixture's audio plus the end trimming its last granule did (under one packet).
        #expect(duration >= fixture && duration < fixture + 0.12)
    }

    @Test func absurdGranuleWithoutPacketsIsFormatForBoth() throws {
        let path = try opusFile("headers-then-absurd.ogg") { pages in
            pages = Array(pages.prefix(2))
            pages[1].granule = 96_076_792_050_575 * 48_000
        }
        try expectAgreement(path, expected: .format)
    }

    @Test func flacWhoseTotalSamplesSayTwoToThe36MinusOneIsWhatItsFramesHold() throws {
        var flac = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(.flac))))
        // "fLaC", a STREAMINFO block header, then STREAMINFO: total samples are its bits 108…143, i.e. the low
        // nibble of file byte 21 and bytes 22…25.
        #expect(Array(flac.prefix(4)) == Array("fLaC".utf8) && flac[4] & 0x7F == 0)
        flac[21] |= 0x0F
        flac.replaceSubrange(22..<26, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let path = try Fixtures.temporaryDirectory() + "/absurd-total.flac"
        try Data(flac).write(to: URL(fileURLWithPath: path))

        let duration = try #require(try expectAgreement(path, expected: nil))
        let original = try Decoders.info(of: FileSource(path: Fixtures.path(.flac))).duration
        #expect(abs(duration - original) < 1e-6)
        #expect(try WaveformAnalysis.waveform(of: FileSource(path: path))
                == WaveformAnalysis.waveform(of: FileSource(path: Fixtures.path(.flac))))
    }
}
