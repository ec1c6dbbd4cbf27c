import Testing
import VoiceNoteCore
import VoiceNoteFlow

/// The gesture maths of the record button, with Stream's test numbers and with the defaults.
@Suite struct SlideGestureTests {
    /// Stream's distances of 100, pressed at (200, 200).
    static var stream: FlowConfiguration {
        var configuration = FlowConfiguration()
        configuration.slideToCancelDistance = 100
        configuration.lockDistance = 100
        return configuration
    }

    @Test(arguments: [(150.0, SlideGesture.Reading.sliding(alpha: 0.5)), (100, .sliding(alpha: 0)), (50, .cancel)])
    func slidingLeftAsStreamTestsIt(x: Double, reading: SlideGesture.Reading) {
        var gesture = SlideGesture(pressX: 200, pressY: 200)
        #expect(gesture.move(x: x, y: 200, Self.stream) == reading)
    }

    @Test(arguments: [(150.0, SlideGesture.Reading.lifting(padding: 50, chevronAlpha: 0.5)), (50, .lock)])
    func liftingAsStreamTestsIt(y: Double, reading: SlideGesture.Reading) {
        var gesture = SlideGesture(pressX: 200, pressY: 200)
        #expect(gesture.move(x: 200, y: y, Self.stream) == reading)
    }

    /// The defaults (75 to cancel, 50 to lock), pressed in the middle of a 48 px button.
    @Test func theDefaultDistancesFromTheMiddleOfTheButton() {
        let defaults = FlowConfiguration()
        var gesture = SlideGesture(pressX: 24, pressY: 24)
        #expect(gesture.move(x: 24 - 37.5, y: 24, defaults) == .sliding(alpha: 0.5))
        #expect(gesture.move(x: 24 - 75, y: 24, defaults) == .sliding(alpha: 0))
        #expect(gesture.move(x: 24 - 75.5, y: 24, defaults) == .cancel)
        var lift = SlideGesture(pressX: 24, pressY: 24)
        #expect(lift.move(x: 24, y: 22, defaults) == .lifting(padding: SlideGesture.minimumLockPadding, chevronAlpha: 0.96))
        #expect(lift.move(x: 24, y: 24 - 25, defaults) == .lifting(padding: 25, chevronAlpha: 0.5))
        #expect(lift.move(x: 24, y: 24 - 51, defaults) == .lock)
    }

    /// Each move's direction is that of its larger step since the previous move; right of or below the press point,
    /// the label and chevron stay fully drawn.
    @Test func eachMoveReadsItsOwnDirection() {
        let defaults = FlowConfiguration()
        var gesture = SlideGesture(pressX: 100, pressY: 100)
        #expect(gesture.move(x: 90, y: 95, defaults) == .sliding(alpha: (75 - 10) / 75.0))  // |dx| 10 ≥ |dy| 5
        #expect(gesture.move(x: 88, y: 70, defaults) == .lifting(padding: 30, chevronAlpha: 0.4))  // |dy| 25 > |dx| 2
        #expect(gesture.move(x: 130, y: 70, defaults) == .sliding(alpha: 1))
        #expect(gesture.move(x: 130, y: 140, defaults) == .lifting(padding: SlideGesture.minimumLockPadding, chevronAlpha: 1))
    }

    @Test func theConfigurationIsChecked() throws {
        try FlowConfiguration().validate()
        var bad = FlowConfiguration()
        bad.lockDistance = .nan
        #expect(throws: VoiceNoteError.self) { try bad.validate() }
        bad = FlowConfiguration()
        bad.waveformSamples = 0
        #expect(throws: VoiceNoteError.self) { try bad.validate() }
        bad = FlowConfiguration()
        bad.hideTipDelay = -1
        #expect(throws: VoiceNoteError.self) { try bad.validate() }
    }
}
