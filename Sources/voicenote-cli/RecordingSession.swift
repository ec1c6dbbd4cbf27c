import Glibc
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteRecorder
import VoiceNoteWaveform

/// Runs one take for `voicenote record`: starts the recorder, waits on its event loop, standard input and
/// signals, shows progress, and moves the finished file to `--output`; with `--upload`, sends the take while it is
/// recorded and prints the uploaded payload once the upload ends.
///
/// Every way the user or the system can end the command finishes the take and keeps the file: Enter (a newline on
/// standard input, in every display: `EnterWatch`), SIGINT
/// (Ctrl-C), SIGTERM, SIGHUP (the terminal went away) and SIGPIPE (whoever read standard output stopped), so no
/// `.part` is left to `recover`.
///
/// Unchecked Sendable: the recorder delivers through `loop`, which this object dispatches on its own thread only.
final class RecordingSession: @unchecked Sendable {
    enum Display { case none, meter, json }

    private let recorder: Recorder
    private let loop: EventLoop
    private let output: String?
    private let display: Display
    private var result: RecordingResult?
    private var failure: VoiceNoteError?
    private var done = false
    private var stopRequested = false
    /// A write to standard output failed (its reader closed it): no more progress lines, and the final line
    /// becomes an error that names the kept file.
    private var outputClosed = false
    private var lastLine = ""
    private var enter: EnterWatch
    private let uploader: Uploader?
    private var reservedShown = false

    init(recorder: Recorder, loop: EventLoop, output: String?, display: Display, enter: EnterWatch, uploader: Uploader?) {
        self.recorder = recorder
        self.uploader = uploader
        self.enter = enter
        self.loop = loop
        self.output = output
        self.display = display
    }

    func run() throws(VoiceNoteError) {
        let stopSignals = try SignalPipe(signals: [SIGINT, SIGTERM, SIGHUP, SIGPIPE])
        _ = try recorder.events.subscribe({ [self] event in handle(event) }, release: nil)
        if let uploader {
            _ = try uploader.events.subscribe({ [self] state in showReserved(state, uploader) }, release: nil)
        }
        try recorder.begin()
        if let uploader {
            do throws(VoiceNoteError) {
                try uploader.upload(.live(recorder.streamTake()))
            } catch {
                try? recorder.stop()  // the take is kept; the upload could not start
                failure = error
            }
        }
        if display == .meter { Terminal.writeError("Recording… press Enter or Ctrl-C to stop.\n") }
        var stopping = false
        while !done {
            var descriptors = [
                pollfd(fd: loop.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopSignals.readEnd, events: Int16(POLLIN), revents: 0),
                enter.pollDescriptor,
            ]
            _ = poll(&descriptors, stopping ? 2 : 3, 200)
            _ = try loop.dispatch()
            if descriptors[1].revents & Int16(POLLIN) != 0, !stopSignals.received().isEmpty { stopRequested = true }
            if !stopping && enter.enterPressed(descriptors[2]) { stopRequested = true }
            if stopRequested && !stopping {
                stopping = true
                try? recorder.stop()
                _ = try loop.dispatch()
            }
        }
        recorder.close()
        if display == .meter { Terminal.writeError("\n") }
        if let result { try deliver(result) }
        if let failure { throw failure }
        if let uploader { try report(uploader.wait()) }
    }

    /// With a Matrix or tus upload: prints the URL it reserved, once, as soon as it is known (its first uploading
    /// state), so a message can name it before the bytes are on the server.
    private func showReserved(_ state: UploadState, _ uploader: Uploader) {
        guard !reservedShown, !outputClosed, case .uploading = state, let url = uploader.contentURI else { return }
        reservedShown = true
        if display == .json {
            print(JSONValue.members([("reserved", .string(url))]).line)
        } else {
            if display == .meter { Terminal.writeError("\n") }
            print("reserved: \(url)")
        }
        if fflush(nil) != 0 { outputClosed = true; stopRequested = true }
    }

    /// Prints the uploaded payload (indented, or as {"uploaded": …} with `--progress json`), or throws the
    /// upload's failure.
    private func report(_ outcome: UploadState?) throws(VoiceNoteError) {
        switch outcome {
        case .uploaded(let payload)?:
            if display == .json {
                print("{\"uploaded\":\(payload.json(indent: 0))}")
            } else {
                print(payload.json(indent: 2))
            }
            if fflush(nil) != 0 { throw VoiceNoteError(.io, "standard output was closed; the upload ended") }
        case .uploadFailed(let error)?:
            throw VoiceNoteError(error.status, "the upload failed (the recording was kept): \(error.message)")
        default:
            throw VoiceNoteError(.internal, "the upload did not end")
        }
    }

    private func handle(_ event: RecorderEvent) {
        switch event {
        case .context(let context):
            show(context)
            if context.state == .stopped { done = true }
        case .finished(let finished):
            result = finished
        case .failed(let error):
            failure = error
        case .maximumDurationWarning, .maximumDurationReached:
            break
        case .tooShort(let duration):
            failure = VoiceNoteError(.cancelled, "the take was too short (\(duration) s) and was discarded")
        case .sourceChanged(let device, let lost):
            if display == .meter { Terminal.writeError("\n") }
            Terminal.writeError("voicenote: the microphone was lost (\(lost.message)); recording goes on from \(device)\n")
        }
    }

    private func show(_ context: RecorderContext) {
        switch display {
        case .none:
            break
        case .json:
            guard !outputClosed else { return }
            let state = ["stopped", "recording", "paused"][Int(context.state.rawValue)]
            print(JSONValue.members([("state", .string(state)), ("duration", .number(context.duration)),
                                     ("average_power", .number(Double(context.averagePower))),
                                     ("peak_power", .number(Double(context.peakPower))),
                                     ("overruns", .count(context.overruns)), ("path", .string(context.path))]).line)
            if fflush(nil) != 0 { outputClosed = true; stopRequested = true }
        case .meter:
            let width = max(10, min(40, Terminal.columns - 24))
            let bars = WaveformRendering.bars(recorder.levels(last: width), columns: width)
            let line = "\r● \(formatClock(context.duration))  \(bars)"
            if line != lastLine { Terminal.writeError(line); lastLine = line }
        }
    }

    /// Moves the finished file to `--output` (same directory, so a rename) and prints where it is; when standard
    /// output is closed, fails with an error naming the file instead.
    private func deliver(_ result: RecordingResult) throws(VoiceNoteError) {
        var path = result.path
        if let output, output != result.path {
            try FileSystem.rename(result.path, to: output)
            path = output
        }
        if !outputClosed {
            if display != .json { print("\(path)  \(formatSeconds(result.duration)) s  \(result.size) bytes") }
            else {
                print(JSONValue.members([("finished", .string(path)), ("duration", .number(result.duration)),
                                         ("size", .count(result.size))]).line)
            }
            if fflush(nil) == 0 { return }
        }
        throw VoiceNoteError(.io, "standard output was closed; the recording was kept: \(path)")
    }
}

/// mm:ss.t
func formatClock(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded(.down))
    let minutes = tenths / 600, rest = tenths % 600
    let secondsText = String(rest / 10)
    return (minutes < 10 ? "0" : "") + "\(minutes):" + (rest < 100 ? "0" : "") + secondsText + ".\(rest % 10)"
}
