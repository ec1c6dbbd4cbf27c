#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import VoiceNoteWaveform

@Suite struct DecibelTableTests {
    @Test func tableHasOneEntryPerMagnitude() {
        #expect(DecibelTable.units.count == 32768)
        #expect(DecibelTable.count == 32768)
    }

    /// Every 1000th entry (and the last) against `20·log10(k/32767)` clipped to [−50, 0].
    @Test func agreesWithLog10() {
        for magnitude in Array(stride(from: 0, to: 32768, by: 1000)) + [32767] {
            let exact = magnitude == 0 ? -50 : max(-50, 20 * log10(Double(magnitude) / 32767))
            let table = DecibelTable.decibels(Int16(magnitude))
            #expect(abs(Double(table) - exact) < 1e-5, "magnitude \(magnitude): \(table) vs \(exact)")
        }
    }

    @Test func endpointsAndSymmetry() {
        #expect(DecibelTable.decibels(Int16(0)) == -50)
        #expect(DecibelTable.decibels(Int16(32767)) == 0)
        #expect(DecibelTable.decibels(Int16(-32767)) == 0)
        // −32768 reads the entry of 32767.
        #expect(DecibelTable.decibels(Int16.min) == 0)
        #expect(DecibelTable.decibels(Int16(-1000)) == DecibelTable.decibels(Int16(1000)))
        // 103/32767 is −50.05 dB: clipped. 104/32767 is −49.97 dB: kept.
        #expect(DecibelTable.decibels(Int16(103)) == -50)
        #expect(abs(DecibelTable.decibels(Int16(104)) - -49.96807) < 1e-4)
        // 3277/32767 is −19.99920 dB.
        #expect(abs(DecibelTable.decibels(Int16(3277)) - -19.99920) < 1e-4)
    }

    @Test func floatPath() {
        #expect(DecibelTable.decibels(Float(1)) == 0)
        #expect(DecibelTable.decibels(Float(-1)) == 0)
        #expect(DecibelTable.decibels(Float(1.5)) == 0)
        #expect(DecibelTable.decibels(Float.infinity) == 0)
        #expect(DecibelTable.decibels(Float(0)) == -50)
        #expect(DecibelTable.decibels(-Float(0)) == -50)
        #expect(DecibelTable.decibels(Float.nan) == -50)
        // −60 dB: under the floor.
        #expect(DecibelTable.decibels(Float(0.001)) == -50)
        #expect(abs(DecibelTable.decibels(Float(0.1)) - -20) < 1e-4)
        #expect(abs(DecibelTable.decibels(Float(-0.5)) - -6.0206) < 1e-4)
        #expect(abs(DecibelTable.decibels(Float(0.01)) - -40) < 1e-4)
    }

    @Test func floatAndInt16AgreeOnTheSameLevel() {
        for magnitude in stride(from: 100, to: 32768, by: 997) {
            let viaFloat = DecibelTable.decibels(Float(magnitude) / 32767)
            let viaTable = DecibelTable.decibels(Int16(magnitude))
            #expect(abs(viaFloat - viaTable) < 1e-3, "magnitude \(magnitude)")
        }
    }
}

@Suite struct FloatDecibelTests {
    /// The exponent-and-mantissa table against `20·log10|x|` in Double, over 200 000 magnitudes spread
    /// logarithmically from −50 to 0 dB: at most one unit (1/65536 dB) apart after rounding.
    @Test func mantissaTableAgreesWithLog10() {
        var worst = 0.0
        for step in 0..<200_000 {
            let magnitude = Float(pow(10, -2.5 * Double(step) / 200_000))
            let exact = max(-50, min(0, 20 * log10(Double(magnitude)))) * 65536
            let fast = Double(DecibelTable.decibels(magnitude)) * 65536
            worst = max(worst, abs(fast - exact))
        }
        #expect(worst <= 1.0, "worst \(worst) units")
    }
}
