import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNoteTestSupport

/// Random input sequences over a real recorder and player, from two threads at once, with no waiting, the manual
/// clock moved at random between them (run plain, and by `make test` under ThreadSanitizer and AddressSanitizer):
/// every input returns or throws what its documentation says, and the flow closes with a take perhaps running.
@Suite struct HurriedFlowTests {
    /// A small deterministic generator, so a failing sequence can be replayed from its seed.
    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// One random input; nil when its outcome is documented (done, `.misuse`, or `.invalidArgument` for a trim
    /// outside the take), else what happened.
    static func hurry(_ flow: RecordingFlow, _ random: inout Random) -> String? {
        let a = Double(random.next(400)), b = Double(random.next(400))
        let key = FlowKey(rawValue: Int32(random.next(3)))!
        let choice = random.next(16)
        do {
            switch choice {
            case 0: try flow.press(x: a, y: b)
            case 1: try flow.release()
            case 2: try flow.move(x: a, y: b)
            case 3: try flow.keyDown(key)
            case 4: try flow.keyUp(key)
            case 5: try flow.lock()
            case 6: try flow.cancel()
            case 7: try flow.stop()
            case 8: try flow.discard()
            case 9: try flow.send()
            case 10: try flow.confirm()
            case 11: try flow.play()
            case 12: try flow.pause()
            case 13: try flow.seek(to: a / 400)
            case 14: try flow.trim(start: a / 400, end: a / 400 + (b + 1) / 400)
            default: try flow.deactivate()
            }
        } catch {
            if error.status == .misuse || (choice == 14 && error.status == .invalidArgument) { return nil }
            return "input \(choice): \(error)"
        }
        return nil
    }

    @Test(arguments: [false, true])
    func thousandsOfRandomInputsFromTwoThreads(toggleMode: Bool) throws {
        let rig = try RecordingFlowTests.Rig { $0.toggleMode = toggleMode; $0.keyInputs = true }
        let rounds = Sanitizers.thread || Sanitizers.address ? 600 : 2000
        let other = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Thread { [flow = rig.flow] in
            var random = Random(state: 7)
            for _ in 0..<rounds {
                if let wrong = Self.hurry(flow, &random) { other.withLock { $0.append(wrong) } }
            }
            done.signal()
        }.start()
        var random = Random(state: toggleMode ? 11 : 3)
        var wrong: [String] = []
        for _ in 0..<rounds {
            if let outcome = Self.hurry(rig.flow, &random) { wrong.append(outcome) }
            if random.next(8) == 0 { try rig.clock.advance(Double(random.next(100)) / 100) }
        }
        #expect(done.wait(timeout: .now() + 120) == .success, "the other thread did not finish")
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(other.withLock { $0 }.isEmpty, "\(other.withLock { $0 }.prefix(5))")
        // The flow carries its commands out on its worker, behind the inputs (far behind under the sanitizers), and
        // a take not yet begun when the flow closes never runs: wait (bounded) for what the hurry began.
        let ran = eventually(seconds: 60, pollMicroseconds: 1000) {
            rig.log.states.contains(.recording) || rig.log.states.contains(.locked)
        }
        #expect(ran, "no take ever ran")
        // Not wedged: settled by the documented inputs, the flow records again.
        for key in 0..<3 { try? rig.flow.keyUp(FlowKey(rawValue: Int32(key))!) }
        try? rig.flow.release()
        let settled = eventually(seconds: 60, pollMicroseconds: 1000) {
            try? rig.flow.cancel()
            return !rig.flow.isBeginning && [.idle, .showingTip].contains(rig.flow.view.state)
        }
        #expect(settled, "the flow did not settle after a cancel: \(rig.flow.view.state)")
        let before = rig.log.all.count
        try rig.flow.press(x: 200, y: 200)
        try rig.clock.advance(0.5)
        let recordsAgain = eventually(seconds: 60, pollMicroseconds: 1000) {
            rig.log.all.dropFirst(before).contains { if case .view(let view) = $0 { view.state == .recording } else { false } }
        }
        #expect(recordsAgain, "no take after the hurry (\(rig.flow.view.state))")
        rig.close()
    }
}
