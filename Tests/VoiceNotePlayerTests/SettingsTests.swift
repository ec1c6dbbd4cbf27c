import Testing
import VoiceNoteCore
import VoiceNotePlayer

@Suite struct SettingsTests {
    @Test(arguments: [Double.nan, .infinity, -.infinity, 0, 3, 0.49, 2.51, -1])
    func badRatesAreInvalidArguments(rate: Double) {
        let message = expectError(.invalidArgument) { _ = try PlaybackRate(rate) }
        #expect(message?.contains("0.5…2.5") == true)
    }

    @Test(arguments: [0.5, 1, 1.25, 2, 2.5])
    func ratesInRangeAreKept(rate: Double) throws {
        #expect(try PlaybackRate(rate).value == rate)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -0.01, 1.01, 2])
    func badVolumesAreInvalidArguments(volume: Double) {
        let message = expectError(.invalidArgument) { _ = try Volume(volume) }
        #expect(message?.contains("0…1") == true)
    }

    @Test(arguments: [0, 0.25, 1])
    func volumesInRangeAreKept(volume: Double) throws {
        #expect(try Volume(volume).value == volume)
    }

    @Test func badFormatsAreInvalidArguments() {
        expectError(.invalidArgument) { _ = try TimeStretcher(sampleRate: 0, channels: 1) }
        expectError(.invalidArgument) { _ = try TimeStretcher(sampleRate: 48_000, channels: 0) }
        expectError(.invalidArgument) { _ = try SilenceSkipper(sampleRate: 4_000, channels: 1) }
        expectError(.invalidArgument) { _ = try PlaybackPipeline(sampleRate: 48_000, channels: 256) }
    }
}
