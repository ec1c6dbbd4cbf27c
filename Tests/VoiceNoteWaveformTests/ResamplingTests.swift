import Testing
@testable import VoiceNoteWaveform

private let oneToTen: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]

@Suite struct ResamplingTests {
    /// Stream's own test values (docs/waveform.md): exact (all representable).
    @Test func downsampleToFive() {
        #expect(Waveform.downsample(oneToTen, to: 5) == [1.5, 3.5, 5.5, 7.5, 9.5])
    }

    /// Stream's own test values (docs/waveform.md): 1.8 and 7.2 are not representable, so within 1e-6.
    @Test func downsampleToThree() {
        let values = Waveform.downsample(oneToTen, to: 3)
        #expect(values.count == 3)
        #expect(maximumDifference(values, [1.8, 4.5, 7.2]) < 1e-6)
        #expect(values[1] == 4.5)
    }

    @Test func downsampleUnchangedWhenNotShrinking() {
        #expect(Waveform.downsample(oneToTen, to: 10) == oneToTen)
        #expect(Waveform.downsample(oneToTen, to: 20) == oneToTen)
        #expect(Waveform.downsample(oneToTen, to: 0) == oneToTen)
        #expect(Waveform.downsample(oneToTen, to: -3) == oneToTen)
        #expect(Waveform.downsample([], to: 5) == [])
    }

    /// Stream's own test values (docs/waveform.md): exact.
    @Test func upsampleToTen() {
        #expect(Waveform.upsample([1, 2, 3, 4, 5], to: 10) == [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5])
    }

    @Test func upsampleUnchangedWhenNotGrowing() {
        #expect(Waveform.upsample([1, 2, 3], to: 3) == [1, 2, 3])
        #expect(Waveform.upsample([1, 2, 3], to: 2) == [1, 2, 3])
        #expect(Waveform.upsample([1, 2, 3], to: -1) == [1, 2, 3])
        #expect(Waveform.upsample([], to: 4) == [])
        #expect(Waveform.upsample([0.25], to: 3) == [0.25, 0.25, 0.25])
    }

    /// `resample` equals Stream's `downsample` when m divides the count, and keeps scale and tail when not.
    @Test func resampleShrinksByBucketMeans() {
        #expect(Waveform.resample(oneToTen, to: 5) == Waveform.downsample(oneToTen, to: 5))
        // Buckets [0,3) [3,6) [6,10): means 2, 5, 8.5.
        #expect(Waveform.resample(oneToTen, to: 3) == [2, 5, 8.5])
        // 100 → 57 keeps the whole range (Stream's downsample would stop at value 57, divided by 1.75).
        let ramp = (0..<100).map { Float($0) / 99 }
        let shrunk = Waveform.resample(ramp, to: 57)
        #expect(shrunk.count == 57)
        #expect(shrunk[0] < 0.01 && shrunk[56] > 0.99)
    }

    @Test func resampleAlwaysGivesTheCount() {
        #expect(Waveform.resample([1, 2, 3, 4, 5], to: 10) == Waveform.upsample([1, 2, 3, 4, 5], to: 10))
        #expect(Waveform.resample([1, 2, 3], to: 3) == [1, 2, 3])
        #expect(Waveform.resample([], to: 4) == [0, 0, 0, 0])
        #expect(Waveform.resample([1, 2], to: 0) == [])
        #expect(Waveform.resample([1, 2], to: -5) == [])
    }
}
