#if canImport(Glibc)
import Glibc
#endif

/// The clipped per-sample level of docs/waveform.md step 3: `20·log10(|x| / full scale)`, clipped to [−50, 0] dB.
///
/// Levels are kept internally as integers of 1/65536 dB. Integer sums are exact and independent of the order of
/// addition, so a bucket summed sample by sample and the same bucket summed from blocks give the same value to the
/// last bit (what lets `WaveformBlocks` equal `WaveformBuckets`). The rounding (≤ 7.7·10⁻⁶ dB) is far below
/// what a 0…1 `Float` level can show.
public enum DecibelTable {
    /// Entries in the 16-bit table: one per magnitude 0…32767 (−32768 reads the entry of 32767).
    public static let count = 32768

    /// Integer level units per decibel.
    static let unitsPerDecibel: Int32 = 65536

    /// The clip floor (−50 dB) in units.
    static let floorUnits = Int32(Normaliser.floorDecibels) * unitsPerDecibel

    /// The smallest float magnitude above the floor, 10^(−50/20): anything at or below it is −50 dB at once.
    static let quietestAboveFloor: Float = 0.0031622776

    /// Level units of every 16-bit magnitude, built once on first use (32768 `log10` calls, about a millisecond).
    static let units: [Int32] = (0..<count).map { magnitude in
        guard magnitude > 0 else { return floorUnits }
        let decibels = 20 * log10(Double(magnitude) / 32767)
        return Int32((max(decibels, Double(Normaliser.floorDecibels)) * Double(unitsPerDecibel)).rounded())
    }

    /// The table index of a 16-bit sample: its magnitude, with −32768 read as 32767.
    @inline(__always)
    static func index(_ sample: Int16) -> Int {
        min(Int(sample.magnitude), count - 1)
    }

    /// Level units per octave (a factor of 2 in magnitude): 20·log10(2) dB × 65536. A literal, so the hot loop
    /// reads a constant rather than a lazily initialised global.
    static let unitsPerOctave = 394_566.035_916_693_45

    /// Mantissa bits resolved by `mantissaUnits`; the other 13 interpolate.
    static let mantissaBits = 10

    /// Level units of 1 + k/1024 for k in 0…1024: with the float's exponent, the level of any float without a
    /// `log10` call. Linear interpolation between entries errs by under 0.1 unit (10⁻⁶ dB), so the rounded units
    /// almost always equal those of `20·log10|x|` and never differ by more than one. 8 KiB, in L1 cache.
    static let mantissaUnits: [Double] = (0...(1 << mantissaBits)).map { k in
        20 * log10(1 + Double(k) / Double(1 << mantissaBits)) * Double(unitsPerDecibel)
    }

    /// Level units of a float sample on the ±1.0 scale: magnitudes above 1 are 0 dB, zero and NaN are −50 dB.
    /// `mantissa` is `mantissaUnits`.
    @inline(__always)
    static func units(_ sample: Float, mantissa: UnsafePointer<Double>) -> Int32 {
        let magnitude = sample.magnitude
        // Also NaN, zero and subnormals, so only normal floats in (2⁻⁹, 1) reach the bit arithmetic below.
        guard magnitude > quietestAboveFloor else { return floorUnits }
        guard magnitude < 1 else { return 0 }
        let bits = magnitude.bitPattern
        let lowBits = 23 - UInt32(mantissaBits)
        let exponent = Int(bits >> 23) - 127
        let index = Int((bits >> lowBits) & ((1 << UInt32(mantissaBits)) - 1))
        let fraction = Double(bits & ((1 << lowBits) - 1)) / Double(1 << lowBits)
        let low = mantissa[index]
        let units = Double(exponent) * unitsPerOctave + low + (mantissa[index + 1] - low) * fraction
        // `units` < 0 here, so truncating `units − 0.5` rounds half away from zero, as `rounded()` would, without
        // the libm call `rounded()` costs on x86-64 before SSE4.1. Right at the threshold it may land a hair
        // below the floor.
        return max(Int32(units - 0.5), floorUnits)
    }

    /// Decibels of a level in units.
    static func decibels(units: Int32) -> Float {
        // Exact: |units| < 2^24 and the divisor is a power of two.
        Float(units) / Float(unitsPerDecibel)
    }

    /// The clipped level in dB, −50…0, of a 16-bit sample on the 32767 scale (docs/waveform.md), read from the table.
    public static func decibels(_ sample: Int16) -> Float {
        decibels(units: units[index(sample)])
    }

    /// The clipped level in dB, −50…0, of a float sample on the ±1.0 scale: |x| ≥ 1 is 0 dB; zero and NaN are
    /// −50 dB. Taken from the same tables and rounded to 1/65536 dB as the values the waveform types sum: within
    /// 2·10⁻⁵ dB of `20·log10|x|`.
    public static func decibels(_ sample: Float) -> Float {
        Float.withLookup { decibels(units: units(sample, mantissa: $0)) }
    }
}
