import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport

@Suite struct OpusStreamAnalyzerTests {
    @Test(arguments: [Fixtures.Kind.opus, .opusStereo])
    func pagesFedOneByOneDecodeExactlyAsTheFile(kind: Fixtures.Kind) throws {
        let analyzer = OpusStreamAnalyzer()
        var streamed: [Int16] = []
        for page in OggPage.parse(try bytes(of: Fixtures.path(kind))) {
            try feed(analyzer, page.bytes) { streamed.append(contentsOf: $0.samples) }
        }
        analyzer.finish { streamed.append(contentsOf: $0.samples) }
        let fromFile = try decodeAll(openFixture(kind))
        #expect(streamed.count == fromFile.count)
        #expect(streamed == fromFile)
    }
}

/// Feeds one page's bytes to the analyzer.
private func feed(_ analyzer: OpusStreamAnalyzer, _ page: [UInt8], _ consume: (PCMChunk) -> Void) throws {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: page.count, alignment: 1)
    defer { buffer.deallocate() }
    buffer.copyBytes(from: page)
    try analyzer.feed(UnsafeRawBufferPointer(buffer), consume)
}
