#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNotePlayer
import VoiceNoteRecorder

/// Runs `voicenote record --flow`: the recording flow driven from the keyboard. A terminal sends no key releases, so
/// the flow is in toggle mode: Space starts a locked take and Space again stops it into preview; P plays or pauses
/// the preview; ←/→ move the selected trim handle (Tab selects the other one) and T cuts the take to them; Enter
/// sends (cutting first when the handles moved); Esc cancels the take or discards the preview; q quits.
///
/// On a terminal the state is one line redrawn on standard error; otherwise (keys piped in) each new accessible
/// description and each trim range is a line of its own. Sending prints the file and its length on standard error
/// and the `voiceRecording` payload on standard output. Quitting, the end of input, and SIGINT, SIGTERM, SIGHUP and
/// SIGPIPE never lose a take: a running one is stopped and kept (its path printed), and the command ends with 1.
///
/// Unchecked Sendable: the flow, recorder and player deliver through `loop`, which this object dispatches on its own
/// thread only.
final class FlowSession: @unchecked Sendable {
    /// How the command ended, when it did not fail.
    enum Ending: Equatable { case sent, quit, signal(Int32) }

    /// Seconds one ←/→ moves a trim handle.
    static let trimStep = 0.1

    private let flow: RecordingFlow
    private let recorder: Recorder
    private let loop: EventLoop
    private let output: String?
    private let interactive: Bool
    private var view = FlowView()
    private var sent: FlowTake?
    private var failure: VoiceNoteError?
    /// The trim handles, in the take's seconds, and which one ←/→ move.
    private var trimStart = 0.0
    private var trimEnd = 0.0
    private var movingEnd = true
    /// Enter came with the handles moved: the take is cut first, and sent once the cut preview arrives.
    /// A cut runs (from `trim` to its `trimmed` or `trimFailed` event).
    private var trimming = false
    private var lastLine = ""
    private var lastDescription = ""

    init(flow: RecordingFlow, recorder: Recorder, loop: EventLoop, output: String?, interactive: Bool) {
        self.flow = flow
        self.recorder = recorder
        self.loop = loop
        self.output = output
        self.interactive = interactive
    }

    func run() throws(VoiceNoteError) -> Ending {
        let signals = try SignalPipe(signals: [SIGINT, SIGTERM, SIGHUP, SIGPIPE])
        let keyboard = Keyboard.isAvailable ? Keyboard() : nil
        var decoder = KeyDecoder()
        var inputOpen = true
        defer {
            flow.close()
            keyboard?.restore()
            if interactive && !lastLine.isEmpty { Terminal.writeError("\n") }
        }
        _ = try flow.subscribe({ [self] event in handle(event) })
        while true {
            var descriptors = [
                pollfd(fd: loop.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, inputOpen ? 3 : 2, 200)
            _ = try loop.dispatch()
            if sent != nil { return .sent }
            if let failure { throw failure }
            if descriptors[1].revents & Int16(POLLIN) != 0, let number = signals.received().first {
                try keep()
                return .signal(number)
            }
            guard inputOpen, descriptors[2].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
            let keys = keyboard.map { $0.isActive ? $0.read() : [] } ?? decoder.read(STDIN_FILENO)
            guard let keys else {
                inputOpen = false  // the end of input: as q
                try keep()
                return .quit
            }
            for key in keys {
                if key == .character(UInt8(ascii: "q")) || key == .character(UInt8(ascii: "Q")) {
                    try keep()
                    return .quit
                }
                perform(key)
            }
        }
    }

    // MARK: - Keys

    private func perform(_ key: KeyPress) {
        do {
            switch key {
            case .character(UInt8(ascii: " ")):
                try flow.press(x: 0, y: 0)
                try flow.release()
            case .character(UInt8(ascii: "p")), .character(UInt8(ascii: "P")):
                guard view.state == .preview else { return }
                try view.previewPlaying ? flow.pause() : flow.play()
            case .left, .right:
                guard view.state == .preview else { return }
                moveHandle(by: key == .left ? -Self.trimStep : Self.trimStep)
            case .tab:
                movingEnd.toggle()
                draw()
            case .character(UInt8(ascii: "t")), .character(UInt8(ascii: "T")):
                try trimIfMoved()
            case .enter:
                // A send during the cut acts once it ended, on the take as cut.
                if view.state == .preview, !trimming { try trimIfMoved() }
                if view.state != .idle, view.state != .showingTip {
                    try flow.send()
                }
            case .escape:
                try flow.cancel()
            default:
                break
            }
        } catch {
            show(error: error)
        }
    }

    private func moveHandle(by step: Double) {
        let minimumLength = 0.1
        if movingEnd {
            trimEnd = min(view.duration, max(trimStart + minimumLength, trimEnd + step))
        } else {
            trimStart = max(0, min(trimEnd - minimumLength, trimStart + step))
        }
        if !interactive { print(line: "trim \(formatSeconds(trimStart))…\(formatSeconds(trimEnd)) s") }
        draw()
    }

    /// Cuts the take to the handles when they moved; whether it did.
    @discardableResult
    private func trimIfMoved() throws(VoiceNoteError) -> Bool {
        guard view.state == .preview, trimStart > 0 || trimEnd < view.duration - 1e-9 else { return false }
        try flow.trim(start: trimStart, end: trimEnd)
        trimming = true
        return true
    }

    /// A running take is stopped into preview and kept; a kept take's path is printed (nothing was sent).
    private func keep() throws(VoiceNoteError) {
        // A take being begun (the flow's worker opens the device): its beginning, or its failure, first.
        _ = try loop.dispatch(until: { !flow.isBeginning || failure != nil }, seconds: 10)
        _ = try loop.dispatch()  // what ended the beginning was queued with it: the recording view, or the failure
        if let failure { throw failure }
        if view.state == .recording || view.state == .locked {
            try? flow.deactivate()
            _ = try loop.dispatch(until: { view.state == .preview || failure != nil }, seconds: 10)
        }
        if view.state == .preview, let path = previewPath {
            if interactive && !lastLine.isEmpty { Terminal.writeError("\n"); lastLine = "" }
            Terminal.writeError("voicenote: not sent; the take was kept: \(path)\n")
        }
    }

    /// The take in preview: the file the recorder kept last (a cut rewrites it in place).
    private var previewPath: String? {
        let path = recorder.context.path
        return path.isEmpty ? nil : path
    }

    // MARK: - Events

    private func handle(_ event: FlowMachine.Event) {
        switch event {
        case .view(let next):
            let enteredPreview = next.state == .preview && (view.state != .preview || next.duration != view.duration)
            view = next
            if enteredPreview {
                trimStart = next.trimStart
                trimEnd = next.trimEnd
            }
            if !interactive && next.accessibleDescription != lastDescription {
                lastDescription = next.accessibleDescription
                print(line: next.accessibleDescription)
            }
            draw()
        case .attachmentReady(let take):
            deliver(take)
        case .publish, .parked:
            break
        case .trimmed:
            trimming = false
        case .trimFailed(_, let error):
            trimming = false
            show(error: error)  // the take waits as it was
        case .tooShort:
            say("the take was too short: nothing was recorded (hold Space, or press it again to stop)")
        case .failed(let error):
            // Before a preview (the take could not begin, or failed): the command ends with the reason. In preview
            // (the player failed): said, and the take waits as it was.
            if view.state == .preview { show(error: error) } else { failure = error }
        }
    }

    /// Moves a sent take to `--output` and prints it: the file and its length on standard error, the payload (of
    /// the file where it now is) on standard output.
    private func deliver(_ take: FlowTake) {
        do {
            var path = take.path
            var payloadJSON = take.payloadJSON
            if let output, output != take.path {
                try FileSystem.rename(take.path, to: output)
                path = output
                payloadJSON = try VoiceRecordingPayload.fromRecording(path: path, duration: take.duration).json()
            }
            if interactive && !lastLine.isEmpty { Terminal.writeError("\n"); lastLine = "" }
            Terminal.writeError("sent \(path)  \(formatSeconds(take.duration)) s\n")
            Swift.print(payloadJSON)
            fflush(nil)
            sent = FlowTake(path: path, duration: take.duration, waveform: take.waveform, payloadJSON: payloadJSON)
        } catch {
            failure = error
        }
    }

    // MARK: - Drawing

    private func show(error: VoiceNoteError) { say(error.message) }

    /// A line on standard error (below the state line on a terminal).
    private func say(_ text: String) {
        if interactive && !lastLine.isEmpty { Terminal.writeError("\n"); lastLine = "" }
        Terminal.writeError("voicenote: \(text)\n")
        draw()
    }

    /// A line of its own on standard error (keys piped in).
    private func print(line: String) {
        Terminal.writeError(line + "\n")
    }

    /// The state line, redrawn in place on a terminal.
    private func draw() {
        guard interactive else { return }
        let width = max(10, min(40, Terminal.columns - 40))
        let text: String
        switch view.state {
        case .idle, .showingTip:
            text = "Space: record · q: quit"
        case .recording, .locked:
            let bars = WaveformRendering.bars(view.levels, columns: width)
            text = "● \(formatClock(view.duration))  \(bars)  Space: stop · Enter: send · Esc: cancel"
        case .preview:
            text = previewLine(width: width)
        }
        let line = "\r\(text)\u{1B}[K"
        if line != lastLine { Terminal.writeError(line); lastLine = line }
    }

    /// The preview: play state, position, the waveform with the trim handles, and the keys.
    private func previewLine(width: Int) -> String {
        var bars = Array(WaveformRendering.bars(view.waveform, columns: width))
        if view.duration > 0 {
            let column = { (seconds: Double) in min(width - 1, max(0, Int((seconds / self.view.duration * Double(width)).rounded(.down)))) }
            bars[column(trimStart)] = movingEnd ? "[" : "⟦"
            bars[column(max(trimStart, trimEnd - 1e-9))] = movingEnd ? "⟧" : "]"
        }
        let symbol = view.previewPlaying ? "▶" : "❚❚"
        return "\(symbol) \(formatClock(view.previewPosition)) / \(formatClock(view.duration))  \(String(bars))  " +
            "P: play · ←/→ trim · Tab · T: cut · Enter: send · Esc: discard"
    }
}
