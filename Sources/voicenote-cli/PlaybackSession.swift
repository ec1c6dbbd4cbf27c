#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteWaveform

/// Plays for `voicenote play`: loads the first file or URL (a player with a data source plays the rest back to
/// back), waits on the player's event loop, signals and (on a terminal) the keyboard, and draws the position line.
/// It ends when the player stops at the end of its queue; a failure to load one item of a queue is reported and the
/// queue goes on, and the command then ends with the last such failure.
///
/// Every way the command ends closes the player (the sound stops at once) and puts the terminal back as it was:
/// the end of the file, `q`, a failure, and SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE, which arrive through a
/// `SignalPipe` and end the command with 128 + the signal's number. Ctrl-Z (SIGTSTP) pauses, restores the terminal
/// and stops the process; continued (SIGCONT), it plays on and takes the keyboard again once in the foreground.
///
/// Unchecked Sendable: the player delivers through `loop`, which this object dispatches on its own thread only.
final class PlaybackSession: @unchecked Sendable {
    /// How the command ended, when it did not fail.
    enum Ending: Equatable { case finished, quit, signal(Int32) }

    /// The rates `+` and `−` step through.
    static let ratePresets = [0.5, 1, 1.5, 2, 2.5]
    /// Seconds `←` and `→` move.
    static let seekStep = 5.0

    private let player: Player
    private let loop: EventLoop
    private let interactive: Bool
    private var finished = false
    private var failure: VoiceNoteError?
    /// An item ended (`finished`, or `failed` to load) and no other item came since: a stopped or unloaded player
    /// is then at the end of its queue.
    private var itemEnded = false
    /// The last item of a queue that failed to load.
    private var skippedFailure: VoiceNoteError?
    /// The state of the last context received.
    private var lastState = PlayerState.notLoaded
    /// The last context received.
    private var lastContext = PlayerContext()
    private var lastLine = ""

    /// `interactive`: standard output is a terminal (draw the position line, read keys when standard input is one).
    init(player: Player, loop: EventLoop, interactive: Bool) {
        self.player = player
        self.loop = loop
        self.interactive = interactive
    }

    /// Plays `location` from `start` seconds until its end, `q` or a signal; throws the player's failure. `loudness`
    /// (a payload's) levels it without a pre-pass when the player levels.
    func run(location: PlayerLocation, start: Double, loudness: Loudness? = nil) throws(VoiceNoteError) -> Ending {
        let keysWanted = interactive && isatty(STDIN_FILENO) == 1
        // The signal handlers go in before the terminal changes, so no signal can leave it in raw mode.
        let stops = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE]
        let signals = try SignalPipe(signals: stops + (keysWanted ? [SIGTSTP, SIGCONT] : []))
        let keyboard = keysWanted ? Keyboard() : nil
        defer {
            player.close()
            keyboard?.restore()
            if !lastLine.isEmpty { Terminal.writeError("\n") }
        }
        _ = try player.subscribe({ [self] event in handle(event) })
        if start > 0 {
            try player.load(location, autoplay: false, loudness: loudness)
            try player.seek(to: start)
            try player.play()
        } else {
            try player.load(location, loudness: loudness)
        }
        while true {
            var descriptors = [
                pollfd(fd: loop.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            ]
            let watchKeys = keyboard?.isActive ?? false
            _ = poll(&descriptors, watchKeys ? 3 : 2, 200)
            _ = try loop.dispatch()
            if let failure { throw failure }
            if finished {
                if let skippedFailure { throw skippedFailure }
                return .finished
            }
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                for number in signals.received() {
                    guard let keyboard, number == SIGTSTP || number == SIGCONT else { return .signal(number) }
                    if number == SIGTSTP { suspend(keyboard) } else { keyboard.resumed() }
                }
            }
            if watchKeys, descriptors[2].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, let keyboard {
                for key in keyboard.read().compactMap(Self.action) {
                    if key == .quit { return .quit }
                    try perform(key)
                }
            }
        }
    }

    private func handle(_ event: PlayerEvent) {
        switch event {
        case .context(let context):
            lastState = context.state
            lastContext = context
            // The end of the queue (a queue player stops only there, or at `n` on its last item).
            // A stop before the end is the desktop's (MPRIS Stop; the command itself never stops): it ends the command too.
            if (itemEnded && context.state == .notLoaded) || context.state == .stopped {
                finished = true  // the end of the queue, or a stop
            } else if context.state == .paused, let skipped = skippedFailure, itemEnded {
                failure = skipped
            }
            // After the end the player is stopped at 0: the line keeps showing the end instead.
            if !finished { draw(context) }
        case .finished:
            itemEnded = true
            var end = lastContext  // the item that finished (a queue's next one may be current already)
            end.state = .stopped
            end.currentTime = end.duration
            draw(end)
        case .failed(let error):
            // A queue goes on after an item that failed to load; any other failure ends the command.
            if player.isQueue && lastState == .loading {
                Terminal.writeError((lastLine.isEmpty ? "" : "\n") + "voicenote: \(lastContext.location): \(error.message)\n")
                lastLine = ""
                skippedFailure = error
                itemEnded = true
            } else {
                failure = error
            }
        case .listened:
            break  // kept in the store by the player (`--unplayed`)
        case .itemChanged(let location, _):
            itemEnded = false
            if interactive {
                Terminal.writeError((lastLine.isEmpty ? "" : "\n") + "\(location)\n")
                lastLine = ""
            }
        }
    }

    /// What a key does while playing.
    enum Action: Equatable { case togglePause, back, forward, next, faster, slower, quit }

    /// Space pauses, ←/→ seek, n skips, + and − change the rate, q quits; other keys do nothing.
    static func action(_ key: KeyPress) -> Action? {
        switch key {
        case .character(UInt8(ascii: " ")): .togglePause
        case .character(UInt8(ascii: "q")), .character(UInt8(ascii: "Q")): .quit
        case .character(UInt8(ascii: "n")), .character(UInt8(ascii: "N")): .next
        case .character(UInt8(ascii: "+")), .character(UInt8(ascii: "=")): .faster
        case .character(UInt8(ascii: "-")), .character(UInt8(ascii: "_")): .slower
        case .left: .back
        case .right: .forward
        default: nil
        }
    }

    private func perform(_ key: Action) throws(VoiceNoteError) {
        let context = player.context
        switch key {
        case .togglePause:
            switch context.state {
            case .playing: try player.pause()
            case .paused, .stopped: try player.play()
            case .loading, .notLoaded: break
            }
        case .back, .forward:
            guard context.state != .notLoaded, context.state != .loading else { return }
            let step = key == .back ? -Self.seekStep : Self.seekStep
            try player.seek(to: min(max(0, context.currentTime + step), context.duration))
        case .next:
            if player.isQueue { try player.next() }
        case .faster:
            if let rate = Self.ratePresets.first(where: { $0 > context.rate + 1e-9 }) { try player.setRate(rate) }
        case .slower:
            if let rate = Self.ratePresets.last(where: { $0 < context.rate - 1e-9 }) { try player.setRate(rate) }
        case .quit:
            break
        }
    }

    /// Ctrl-Z: pause, give the terminal back, stop; after `fg` (or `bg`), take the keyboard again if this process
    /// is in the foreground, and play on if it was playing.
    private func suspend(_ keyboard: Keyboard) {
        let wasPlaying = player.context.state == .playing
        try? player.pause()
        keyboard.restore()
        if !lastLine.isEmpty { Terminal.writeError("\n"); lastLine = "" }
        _ = kill(getpid(), SIGSTOP)
        // Continued here (`fg` or `bg`).
        keyboard.resumed()
        if wasPlaying { try? player.play() }
        draw(player.context)
    }

    /// The position line: state, elapsed / duration, rate and a bar, redrawn in place on standard error.
    private func draw(_ context: PlayerContext) {
        guard interactive else { return }
        let symbol = switch context.state {
        case .playing: "▶"
        case .paused: "❚❚"
        case .loading: "…"
        case .stopped, .notLoaded: "■"
        }
        let estimate = context.durationIsEstimate ? "~" : ""
        let times = "\(clock(context.currentTime)) / \(estimate)\(clock(context.duration))"
        let head = "\(symbol) \(times)  \(rateText(context.rate))  "
        let width = max(10, min(40, Terminal.columns - head.count - 3))
        let fraction = context.duration > 0 ? min(1, max(0, context.currentTime / context.duration)) : 0
        let filled = fraction.isFinite ? Int((fraction * Double(width)).rounded(.down)) : 0
        let bar = String(repeating: "━", count: filled) + String(repeating: "─", count: width - filled)
        let line = "\r\(head)\(bar)\u{1B}[K"
        if line != lastLine { Terminal.writeError(line); lastLine = line }
    }

    /// mm:ss.t, or `--:--` for a time no clock shows (a file's duration is outside data).
    private func clock(_ seconds: Double) -> String {
        seconds.isFinite && seconds >= 0 && seconds < 1e9 ? formatClock(seconds) : "--:--"
    }

    /// `1×`, `1.5×`, `1.25×`.
    private func rateText(_ rate: Double) -> String {
        rate == rate.rounded() ? "\(Int(rate))×" : "\(rate)×"
    }
}
