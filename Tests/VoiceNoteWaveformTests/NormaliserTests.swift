import Testing
@testable import VoiceNoteWaveform

@Suite struct NormaliserTests {
    /// Stream's own test values (docs/waveform.md), single values: exact.
    @Test(arguments: [(-70, 0), (-50, 0), (-37.5, 0.25), (-25, 0.5), (-12.5, 0.75)] as [(Float, Float)])
    func streamTestValues(decibels: Float, level: Float) {
        #expect(Normaliser.normalise(decibels) == level)
    }

    /// Stream's own test values (docs/waveform.md), arrays: exact (each quotient rounds to the nearest Float, as the literals do).
    @Test func streamTestArrays() {
        #expect(Normaliser.normalise([-40, -30, -20, -10, 0]) == [0.2, 0.4, 0.6, 0.8, 1])
        #expect(Normaliser.normalise([Float]()) == [])
    }

    @Test func clampsAboveZeroAndNeverGivesNaN() {
        #expect(Normaliser.normalise(3) == 1)
        #expect(Normaliser.normalise(.infinity) == 1)
        #expect(Normaliser.normalise(-.infinity) == 0)
        #expect(Normaliser.normalise(.nan) == 0)
    }
}
