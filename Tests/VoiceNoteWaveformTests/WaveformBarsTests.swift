import Testing
@testable import VoiceNoteWaveform

@Suite struct WaveformBarsTests {
    /// ⌊w / 3.5⌋ bars.
    @Test(arguments: [(0.0, 0), (3.4, 0), (3.5, 1), (7, 2), (10.5, 3), (100, 28), (350, 100), (351, 100)])
    func barCountFitsTheWidth(width: Double, count: Int) {
        #expect(Waveform.bars(forWidth: width, height: 40, levels: [0.5]).count == count)
    }

    @Test func heightsAreHalfTheViewAtLevelOneAndAtLeastOne() {
        // 28 bars from 28 levels: no resampling.
        let levels = (0..<28).map { Float($0) / 27 }
        let bars = Waveform.bars(forWidth: 100, height: 40, levels: levels)
        #expect(bars.heights.count == 28)
        #expect(bars.heights[0] == 1)
        #expect(bars.heights[27] == 20)
        #expect(abs(bars.heights[13] - 20 * 13 / 27) < 1e-6)
        #expect(bars.heights.allSatisfy { $0 >= 1 })
        #expect(WaveformBars.x(ofBar: 2) == 7)
    }

    @Test func levelsAreResampledToTheBarCount() {
        // 100 levels → 10 bars: means of 10 each.
        let levels = (0..<100).map { $0 < 50 ? Float(1) : 0 }
        let bars = Waveform.bars(forWidth: 35, height: 10, levels: levels)
        #expect(bars.heights == [5, 5, 5, 5, 5, 1, 1, 1, 1, 1])
        // 2 levels → 4 bars: upsampled.
        #expect(Waveform.bars(forWidth: 14, height: 10, levels: [0, 1]).heights == [1, 2.5, 5, 5])
    }

    @Test func hostileGeometryAndLevels() {
        #expect(Waveform.bars(forWidth: -10, height: 10, levels: [1]).count == 0)
        #expect(Waveform.bars(forWidth: .nan, height: 10, levels: [1]).count == 0)
        #expect(Waveform.bars(forWidth: .infinity, height: 10, levels: [1]).count == WaveformBars.maximumCount)
        #expect(Waveform.bars(forWidth: 7, height: .nan, levels: [1]).heights == [1, 1])
        #expect(Waveform.bars(forWidth: 7, height: 10, levels: [.nan, 7]).heights == [1, 5])
        #expect(Waveform.bars(forWidth: 7, height: 10, levels: []).heights == [1, 1])
    }
}
