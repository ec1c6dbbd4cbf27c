/// The bars a client draws for a waveform in a view (docs/waveform.md, Stream `AudioVisualizationView`): bars 1.5 wide
/// with gaps of 2, as many as fit, each `max(1, level · height / 2)` tall. Geometry is in the toolkit's units
/// (`Double`, as cairo and Qt use); levels are the 0…1 `Float`s of a waveform.
public struct WaveformBars: Sendable, Equatable {
    /// Width of one bar.
    public static let barWidth = 1.5
    /// Gap between bars.
    public static let gap = 2.0
    /// Distance from one bar's left edge to the next one's.
    public static let pitch = barWidth + gap
    /// The most bars laid out, whatever the width (a guard against absurd widths from C).
    public static let maximumCount = 100_000

    /// Bar heights, left to right, each ≥ 1.
    public let heights: [Double]

    /// The number of bars: ⌊width / 3.5⌋.
    public var count: Int { heights.count }

    /// The left edge of bar `index`.
    public static func x(ofBar index: Int) -> Double {
        Double(index) * pitch
    }

    /// Lays out bars for a view.
    /// - Parameters:
    ///   - width: the view's width; non-finite or negative gives no bars.
    ///   - height: the view's height; non-finite or negative counts as 0 (every bar at its minimum of 1).
    ///   - levels: the waveform, each clamped to 0…1 (NaN as 0), then resampled to the bar count with
    ///     `Waveform.resample(_:to:)`. Empty levels draw as silence.
    public init(width: Double, height: Double, levels: [Float]) {
        // `!(x > 0)` also rejects NaN.
        let fitting = width > 0 ? width / Self.pitch : 0
        let count = fitting < Double(Self.maximumCount) ? Int(fitting) : Self.maximumCount
        let halfHeight = height > 0 && height.isFinite ? height / 2 : 0
        // Clamped before resampling, so one NaN cannot spoil a whole bar's mean.
        heights = Waveform.resample(levels.map(Waveform.clamped), to: count).map { level in
            max(1, Double(level) * halfHeight)
        }
    }
}

extension Waveform {
    /// The bars for a view of `width` × `height` showing `levels`; see `WaveformBars`.
    public static func bars(forWidth width: Double, height: Double, levels: [Float]) -> WaveformBars {
        WaveformBars(width: width, height: height, levels: levels)
    }
}
