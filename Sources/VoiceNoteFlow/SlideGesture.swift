/// The gesture maths of a held record button: distances measured from the press point, as Stream's composer
/// measures them from the button's trailing edge (its `|width − x|` and `height − y` are this with the press at
/// (width, height)).
///
/// Each move's direction is horizontal when |dx| ≥ |dy| (dx, dy since the previous move), vertical otherwise. A
/// horizontal move reads how far left of the press point the pointer is: past the slide-to-cancel distance the
/// take is cancelled, short of it the "slide to cancel" label fades by `(distance − diff) / distance`. A vertical
/// move reads how far above it is: past the lock distance the take locks, short of it the lock's padding follows
/// the pointer (at least 4 px) and the chevron fades by `(distance − diff) / distance`.
public struct SlideGesture: Equatable, Sendable {
    /// What a move means.
    public enum Reading: Equatable, Sendable {
        /// Past the slide-to-cancel distance.
        case cancel
        /// Past the lock distance.
        case lock
        /// Sliding left: the "slide to cancel" label's alpha, 1 at the press point, 0 at the distance.
        case sliding(alpha: Double)
        /// Sliding up: the lock's padding in pixels and the chevron's alpha.
        case lifting(padding: Double, chevronAlpha: Double)
    }

    /// The smallest lock padding drawn.
    public static let minimumLockPadding: Double = 4

    /// Where the button was pressed.
    public let pressX: Double
    public let pressY: Double
    private var lastX: Double
    private var lastY: Double

    /// A gesture pressed at (x, y), in the button's coordinates.
    public init(pressX x: Double, pressY y: Double) {
        pressX = x
        pressY = y
        lastX = x
        lastY = y
    }

    /// Reads a move to (x, y) with `configuration`'s distances.
    public mutating func move(x: Double, y: Double, _ configuration: FlowConfiguration) -> Reading {
        let horizontal = abs(x - lastX) >= abs(y - lastY)
        lastX = x
        lastY = y
        if horizontal {
            let diff = pressX - x
            let distance = configuration.slideToCancelDistance
            return diff > distance ? .cancel : .sliding(alpha: min(1, (distance - diff) / distance))
        }
        let diff = pressY - y
        let distance = configuration.lockDistance
        return diff > distance
            ? .lock : .lifting(padding: max(diff, Self.minimumLockPadding), chevronAlpha: min(1, (distance - diff) / distance))
    }
}
