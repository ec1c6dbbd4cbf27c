/// A PCM sample type whose clipped levels can be summed: the one hot loop behind every waveform type.
protocol DecibelSample {
    /// The table the loop reads levels from.
    associatedtype Lookup

    /// Runs `body` with the base address of the table, so the loop does not go through the lazy global on every
    /// sample.
    static func withLookup<R>(_ body: (UnsafePointer<Lookup>) -> R) -> R

    /// The sum of the level units of `count` samples from `samples`.
    static func sumUnits(_ samples: UnsafePointer<Self>, count: Int, lookup: UnsafePointer<Lookup>) -> Int64
}

extension Int16: DecibelSample {
    @inline(__always)
    static func withLookup<R>(_ body: (UnsafePointer<Int32>) -> R) -> R {
        DecibelTable.units.withUnsafeBufferPointer { table in
            // The table is a non-empty constant, so the base address always exists.
            body(table.baseAddress.unsafelyUnwrapped)
        }
    }

    @inline(__always)
    static func sumUnits(_ samples: UnsafePointer<Int16>, count: Int, lookup table: UnsafePointer<Int32>) -> Int64 {
        // Two accumulators let the two table loads of a pair overlap.
        var even: Int64 = 0
        var odd: Int64 = 0
        var k = 0
        while k + 1 < count {
            even &+= Int64(table[DecibelTable.index(samples[k])])
            odd &+= Int64(table[DecibelTable.index(samples[k + 1])])
            k += 2
        }
        if k < count {
            even &+= Int64(table[DecibelTable.index(samples[k])])
        }
        return even &+ odd
    }
}

extension Float: DecibelSample {
    @inline(__always)
    static func withLookup<R>(_ body: (UnsafePointer<Double>) -> R) -> R {
        DecibelTable.mantissaUnits.withUnsafeBufferPointer { table in
            // The table is a non-empty constant, so the base address always exists.
            body(table.baseAddress.unsafelyUnwrapped)
        }
    }

    @inline(__always)
    static func sumUnits(_ samples: UnsafePointer<Float>, count: Int, lookup: UnsafePointer<Double>) -> Int64 {
        var sum: Int64 = 0
        for k in 0..<count {
            sum &+= Int64(DecibelTable.units(samples[k], mantissa: lookup))
        }
        return sum
    }
}
