import Testing
@testable import VoiceNotePlayer

@Suite struct GainTests {
    private func applied(_ input: [Int16], _ gain: inout Gain, channels: Int = 1) -> [Int16] {
        var samples = input
        samples.withUnsafeMutableBufferPointer { gain.apply(to: $0, channels: channels) }
        return samples
    }

    /// Volume 0.5 halves every sample of speech, a tone and full-scale extremes, within 1 LSB.
    @Test func halfVolumeHalvesTheAmplitude() throws {
        let input = try Signal.speech() + Signal.sine(440, seconds: 1, amplitude: 1) + [32767, -32768, 1, -1, 0]
        var gain = Gain(volume: try Volume(0.5), sampleRate: Signal.rate)
        let output = applied(input, &gain)
        let worst = zip(input, output).map { abs(Double($0) / 2 - Double($1)) }.max() ?? 0
        #expect(worst <= 1, "off by \(worst) LSB")
        #expect(abs(Signal.decibels(output[...]) - (Signal.decibels(input[...]) - 6.02)) < 0.05)
    }

    @Test func fullVolumeIsIdentityAndMuteIsSilence() throws {
        let input = Signal.noise(seconds: 0.5, decibels: -3) + [32767, -32768]
        var full = Gain(sampleRate: Signal.rate)
        #expect(full.isIdentity)
        #expect(applied(input, &full) == input)
        var mute = Gain(volume: .mute, sampleRate: Signal.rate)
        #expect(applied(input, &mute).allSatisfy { $0 == 0 })
    }

    /// Rounding and saturation at full scale: nothing wraps around.
    @Test func extremesSaturate() throws {
        var gain = Gain(volume: try Volume(0.99999), sampleRate: Signal.rate)
        #expect(applied([32767, -32768, 32766], &gain) == [32767, -32768, 32766])
        #expect(Gain.scale(-32768, by: 1.5) == -32768)
        #expect(Gain.scale(32767, by: 1.5) == 32767)
    }

    /// A change ramps linearly over 10 ms (480 frames at 48 kHz, every channel alike), then holds.
    @Test func changesRampOverTenMilliseconds() throws {
        var gain = Gain(sampleRate: Signal.rate)
        gain.setVolume(try Volume(0.25))
        #expect(!gain.isIdentity)
        let output = applied([Int16](repeating: 10000, count: 2 * 960), &gain, channels: 2)
        #expect(output[0] == output[1])
        #expect(abs(Int(output[0]) - 9984) <= 1)
        #expect(abs(Int(output[2 * 239]) - 6250) <= 10)
        #expect(output[(2 * 479)...].allSatisfy { $0 == 2500 })
        #expect(zip(output, output.dropFirst(2)).allSatisfy { $0 >= $1 })
        #expect(gain.volume.value == 0.25)
    }
}
