#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteAttachments
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNoteNetwork
import VoiceNotePlayer
import VoiceNoteRecorder
import VoiceNoteSources
import VoiceNoteTranscript
import VoiceNoteWaveform

/// Runs `voicenote demo` step by step, printing what each step did: one line per step (and, on a terminal, the
/// recording's live line on standard error). Every object delivers its events through one `EventLoop` that this
/// object dispatches on its own thread, so nothing here needs a lock.
final class DemoSession: @unchecked Sendable {
    private let directory: String
    private let live: Bool
    private let text: String
    private let endpoint: String?
    private let http: HTTPOptions
    private let loop: EventLoop
    /// The files this run wrote, in order, for the last lines.
    private var written: [(String, String)] = []

    /// The longest any one step may take before the demo gives up.
    static let stepSeconds = 60.0

    init(directory: String, live: Bool, text: String, endpoint: String?, http: HTTPOptions) throws(VoiceNoteError) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.live = live
        self.text = text
        self.endpoint = endpoint
        self.http = http
        loop = try EventLoop()
    }

    func run() throws(VoiceNoteError) {
        let take = try record()
        let note = path("note.ogg")
        try FileSystem.rename(take.path, to: note)
        var payload = try VoiceRecordingPayload.fromRecording(path: note, duration: take.duration, waveform: take.waveform,
                                                              loudness: (try? VoiceRecordingPayload(json: take.payloadJSON))?.loudness)
        payload.title = "Voice message"
        written.append((note, "the note, Ogg Opus"))
        step("the take: \(formatSeconds(take.duration)) s")
        print("  " + WaveformRendering.bars(take.waveform, columns: min(80, max(20, Terminal.columns - 2))))
        let svg = path("waveform.svg")
        try WaveformRendering.write(WaveformRendering.svg(take.waveform, width: 300, height: 40), to: svg)
        written.append((svg, "its waveform"))
        if let loudness = payload.loudness {
            step("its loudness (EBU R128, measured as it was recorded): \(loudnessText(loudness))")
        }
        if let noisyMicrophone {
            // The fan alone, once cleanup has settled: the last second of the lead before the sentence (the take
            // begins 0.1 s into the microphone's input: the trim's start).
            let microphone = Self.level(of: noisyMicrophone.samples, rate: noisyMicrophone.rate, from: Self.noiseLead - 1, to: Self.noiseLead - 0.1)
            let take = try firstChannel(of: note)
            let kept = Self.level(of: take.samples, rate: take.rate, from: Self.noiseLead - 1.1, to: Self.noiseLead - 0.2)
            step("voice cleanup: the fan at \(formatTenths(microphone)) dBFS at the microphone, \(formatTenths(kept)) dBFS in the take")
        }
        transcribe(note, into: &payload)
        step("its voiceRecording payload (what a chat message carries):")
        print(payload.json())

        var location = PlayerLocation.file(note)
        if let endpoint {
            let uploaded = try upload(note, payload: payload, to: endpoint)
            location = .url(uploaded.assetURL, options: http, key: nil)
        }
        let speaker = defaultSpeaker()
        for rate in [1.0, 2.0] {
            let output = path("playback-\(Int(rate))x.wav")
            step("playing it at \(Int(rate))x, levelled to \(formatTenths(Leveling.defaultTarget)) LUFS"
                 + (speaker == nil ? " to \(output)" : " to the default device"))
            try play([location], rate: rate, loudness: payload.loudness, to: try device(speaker, orFile: output))
            if speaker == nil { written.append((output, "what the speaker got at \(Int(rate))x: \(try length(of: output)) s")) }
        }
        let queue = try [location] + moreNotes(after: location)
        let output = path("queue.wav")
        step("a queue of three notes, each starting when the one before ends" + (speaker == nil ? ", to \(output)" : ""))
        try play(queue, rate: 1, loudness: nil, to: try device(speaker, orFile: output))
        if speaker == nil { written.append((output, "the queue: \(try length(of: output)) s")) }
        _ = rmdir(path("takes"))  // empty: every take was moved out of it
        step("files:")
        for (file, what) in written { print("  \(file)  (\(what))") }
    }

    /// The note's words, recognised on this machine as they come (PocketSphinx), carried in the payload; a host
    /// without PocketSphinx is told what to install and the demo goes on.
    private func transcribe(_ note: String, into payload: inout VoiceRecordingPayload) {
        step("its words, recognised offline by PocketSphinx (espeak-ng's voice is far from the model's speakers):")
        do throws(VoiceNoteError) {
            let job = Transcription(open: { () throws(VoiceNoteError) in try FileSource(path: note) }, backend: try PocketSphinxBackend())
            _ = try job.events.subscribe({ event in
                if case .words(let words) = event { print("  " + words.map(\.text).joined(separator: " ")) }
            }, release: nil)
            try job.start()
            defer { job.close() }
            guard let transcript = job.wait(seconds: 120).transcript else {
                throw job.failure ?? VoiceNoteError(.busy, "the transcript did not end within 120 s")
            }
            try payload.setTranscript(transcript)
        } catch {
            print("  (no transcript: \(error.message))")
        }
    }

    // MARK: - Recording through the flow

    /// The sentence through the virtual microphone (or the real one with `--live`), recorded by a `RecordingFlow`:
    /// hold, slide up to lock, stop, preview, trim, send.
    private func record() throws(VoiceNoteError) -> FlowTake {
        let microphone: DeviceSelection
        let spoken: Double
        if live {
            microphone = DeviceSelection(name: "default")
            spoken = 5
        } else {
            (microphone, spoken) = try virtualMicrophone(saying: text, name: "speech", noisyRoom: true)
            written.append((path("speech.wav"), "the sentence, from espeak-ng (the microphone heard it beside a fan)"))
        }
        var recording = RecorderConfiguration()
        recording.directory = path("takes")
        recording.device = microphone
        recording.focusGroup = nil
        recording.voiceCleanup = true  // on in the demo, as in the example clients
        let recorder = try Recorder(configuration: recording, dispatcher: loop)
        var previewing = PlayerConfiguration()
        previewing.device = DeviceSelection(name: "vn_demo_preview", configuration: "pcm.vn_demo_preview { type null }")
        previewing.focusGroup = nil
        previewing.resumeStore = nil
        let player = try Player(configuration: previewing, dispatcher: loop)
        let clock: any VoiceNoteClock = live ? MonotonicClock.shared : ManualClock()
        let flow = try RecordingFlow(recorder: recorder, player: player, clock: clock, dispatcher: loop)
        defer {
            flow.close()
            recorder.close()
            player.close()
        }
        _ = try flow.subscribe({ [self] event in flowReported(event) })
        func wait(_ what: String, until condition: () -> Bool) throws(VoiceNoteError) {
            try waitFor(what) { () throws(VoiceNoteError) in
                if let failure { throw failure }
                return condition()
            }
        }
        step(live ? "recording 5 s from the default microphone through the flow" :
            "\"\(text)\" spoken into a virtual microphone, recorded through the flow")
        try flow.press(x: 200, y: 200)
        if let manual = clock as? ManualClock { try manual.advance(0.5) }  // held for the minimum press
        try wait("the take to begin") { view.state == .recording && view.duration >= 1 }
        try flow.move(x: 200, y: 140)  // slid up 60 px: locked
        try wait("the lock") { view.state == .locked }
        try wait("the sentence") { view.duration >= spoken + 0.4 }
        try flow.stop()
        try wait("the preview") { view.state == .preview }
        let end = min(view.duration, spoken + 0.3)
        try flow.trim(start: 0.1, end: end)
        try wait("the trimmed preview") { view.state == .preview && abs(view.duration - (end - 0.1)) < 0.01 }
        try flow.send()
        try wait("the take to be sent") { sent != nil }
        endLive()
        return sent!
    }

    /// What the flow said last: its view, the take it sent, a failure (delivered through `loop`, on this thread).
    private var view = FlowView()
    private var sent: FlowTake?
    private var failure: VoiceNoteError?

    private func flowReported(_ event: FlowMachine.Event) {
        switch event {
        case .view(let next):
            if next.state != view.state { show(next) }
            view = next
            drawLive(next)
        case .attachmentReady(let take): sent = take
        case .failed(let error), .trimFailed(_, let error): failure = error
        case .publish, .parked, .trimmed, .tooShort: break
        }
    }

    /// A virtual microphone (ALSA's `file` plugin behind a `plug` that converts the rate) reading `sentence`,
    /// spoken by espeak-ng into `<name>.wav`, then 30 s of silence, so a take never reaches the end of the input;
    /// and how long the sentence is. In a `noisyRoom`, a fan (a 100 Hz hum and hiss at about −38 dBFS) runs from
    /// `noiseLead` seconds before the sentence to the end, and the length includes that lead.
    private func virtualMicrophone(saying sentence: String, name: String,
                                   noisyRoom: Bool = false) throws(VoiceNoteError) -> (DeviceSelection, Double) {
        let speech = path(name + ".wav")
        try Subprocess.run(["espeak-ng", "-w", speech, sentence])
        var (samples, rate) = try firstChannel(of: speech)
        if noisyRoom { samples = repeatElement(0, count: Int(Self.noiseLead * Double(rate))) + samples }
        let spoken = Double(samples.count) / Double(rate)
        samples += repeatElement(0, count: rate * 30)
        if noisyRoom {
            var state: UInt32 = 0x9E37_79B9
            for index in samples.indices {
                state ^= state << 13; state ^= state >> 17; state ^= state << 5  // xorshift: the same hiss every run
                let hiss = Double(Int32(bitPattern: state) >> 16) / 32768 * 700
                let hum = 350 * sin(2 * Double.pi * 100 * Double(index) / Double(rate))
                samples[index] = Int16(max(-32768, min(32767, Double(samples[index]) + hiss + hum)))
            }
            noisyMicrophone = (samples, rate)
        }
        let raw = path(name + ".raw")
        microphoneFiles.append(raw)
        do throws(Errno) {
            let file = try FileDescriptor(opening: raw, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
            try samples.withUnsafeBytes { bytes in Result { () throws(Errno) in try file.write(bytes) } }.get()
            try file.close()
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "write \(raw)")
        }
        let configuration = "pcm.vn_demo_mic { type plug slave { pcm { type file slave.pcm { type null } " +
            "file \"/dev/null\" infile \(try ALSAConfigurationText.inputFile(raw)) format raw } " +
            "rate \(rate) format S16_LE channels 1 } }"
        return (DeviceSelection(name: "vn_demo_mic", configuration: configuration), spoken)
    }

    /// RMS level in dBFS of mono `samples` from `from` to `to` seconds: the live meter's (`LevelMeter`) over that
    /// one window.
    static func level(of samples: [Int16], rate: Int, from: Double, to: Double) -> Double {
        let first = min(samples.count, Int(from * Double(rate))), last = min(samples.count, Int(to * Double(rate)))
        guard last > first, var meter = try? LevelMeter(windowFrames: last - first) else { return -.infinity }
        var decibels = Double(LevelMeter.silenceDecibels)
        samples[first..<last].withUnsafeBufferPointer { meter.append($0) { decibels = Double($0.averageDecibels) } }
        return decibels
    }

    /// The first channel of a file, decoded, and its rate.
    private func firstChannel(of file: String) throws(VoiceNoteError) -> (samples: [Int16], rate: Int) {
        let decoder = try Decoders.open(try FileSource(path: file), purpose: .playback)
        var samples: [Int16] = []
        while try decoder.decodeNext({ chunk in
            for frame in 0..<chunk.frames { samples.append(chunk.samples[frame * chunk.channels]) }
        }) {}
        return (samples, decoder.outputRate)
    }

    /// Seconds of the fan alone before the first note's sentence: cleanup's noise estimate settles in the first.
    static let noiseLead = 2.0
    /// The first note's microphone input in a noisy room, to show what cleanup took off.
    private var noisyMicrophone: (samples: [Int16], rate: Int)?

    /// The virtual microphones' input files, removed at the end.
    private var microphoneFiles: [String] = []

    /// Two more short notes for the queue, spoken into the virtual microphone and recorded (the recorder's length
    /// limit ends each take) — or, with `--live`, the first note again.
    private func moreNotes(after first: PlayerLocation) throws(VoiceNoteError) -> [PlayerLocation] {
        defer { for file in microphoneFiles { try? FileSystem.remove(file) } }
        guard !live else { return [first, first] }
        let sentences = ["Second note: the train is late, by about ten minutes.", "Third note: found a seat. See you soon."]
        var notes: [PlayerLocation] = []
        for (index, sentence) in sentences.enumerated() {
            let name = "note-\(index + 2)"
            let (microphone, spoken) = try virtualMicrophone(saying: sentence, name: name)
            try? FileSystem.remove(path(name + ".wav"))
            var configuration = RecorderConfiguration()
            configuration.directory = path("takes")
            configuration.device = microphone
            configuration.focusGroup = nil
            configuration.maximumDuration = spoken + 0.2
            let recorder = try Recorder(configuration: configuration, dispatcher: loop)
            defer { recorder.close() }
            let outcome = Locked<Result<RecordingResult, VoiceNoteError>?>(nil)
            _ = try recorder.events.subscribe({ event in
                if case .finished(let finished) = event { outcome.withLock { $0 = $0 ?? .success(finished) } }
                if case .failed(let error) = event { outcome.withLock { $0 = .failure(error) } }
            }, release: nil)
            try recorder.begin()
            var result: RecordingResult?
            try waitFor("note \(index + 2)") { () throws(VoiceNoteError) in
                result = try outcome.withLock { $0 }?.get()
                return result != nil
            }
            let note = path(name + ".ogg")
            try FileSystem.rename(result!.path, to: note)
            written.append((note, "a note for the queue, recorded the same way"))
            notes.append(.file(note))
        }
        return notes
    }

    // MARK: - Upload and playback

    private func upload(_ note: String, payload: VoiceRecordingPayload, to endpoint: String) throws(VoiceNoteError) -> VoiceRecordingPayload {
        step("uploading it to \(endpoint)")
        var options = UploadOptions()
        options.http = http
        let uploader = try Uploader(endpoint: endpoint, options: options)
        defer { uploader.close() }
        try uploader.upload(.file(note), payload: payload)
        switch uploader.wait(timeout: Self.stepSeconds) {
        case .uploaded(let uploaded):
            step("the payload the server completed (asset_url is where the note is now):")
            print(uploaded.json())
            return uploaded
        case .uploadFailed(let error): throw error
        default: throw VoiceNoteError(.network, "the upload did not end within \(Int(Self.stepSeconds)) s")
        }
    }

    /// The default playback device when there is one (it opens), else nil.
    private func defaultSpeaker() -> DeviceSelection? {
        let selection = DeviceSelection(name: "default")
        guard let device = try? PlaybackDevice(selection) else { return nil }
        device.close()
        return selection
    }

    /// `speaker`, or when there is none, a speaker writing what it plays to the WAV file `output` (ALSA's `file`
    /// plugin over `null`).
    private func device(_ speaker: DeviceSelection?, orFile output: String) throws(VoiceNoteError) -> DeviceSelection {
        if let speaker { return speaker }
        let file = try ALSAConfigurationText.outputFile(output)
        return DeviceSelection(name: "vn_demo_speaker", configuration:
            "pcm.vn_demo_speaker { type file slave.pcm { type null } file \(file) format wav perm 0644 }")
    }

    /// Plays `locations` back to back (a queue when there are several) at `rate` to `speaker`, to the end of the
    /// last, levelled (the first with `loudness` when known, the others by their pre-pass); prints each note as it
    /// starts.
    private func play(_ locations: [PlayerLocation], rate: Double, loudness: Loudness?,
                      to speaker: DeviceSelection) throws(VoiceNoteError) {
        var configuration = PlayerConfiguration()
        configuration.device = speaker
        configuration.focusGroup = nil
        configuration.resumePositionLimit = 0
        configuration.resumeStore = nil  // the demo starts each note from its beginning, every run
        let player = try Player(configuration: configuration, dispatcher: loop)
        try player.setRate(rate)
        try player.setLeveling(Leveling())  // every note at one loudness: on in the demo, as in the example clients
        if locations.count > 1 {
            player.setDataSource(PlayList(locations).dataSource)
            _ = try player.subscribe({ event in
                if case .itemChanged(let location, _) = event { print("  ▶ \(location)") }
            })
        }
        let session = PlaybackSession(player: player, loop: loop, interactive: false)
        _ = try session.run(location: locations[0], start: 0, loudness: loudness)
    }

    /// A WAV file's length in seconds, as decoded.
    private func length(of path: String) throws(VoiceNoteError) -> String {
        formatSeconds(try Decoders.info(of: FileSource(path: path)).duration)
    }

    // MARK: - Output

    private func path(_ name: String) -> String { directory + "/" + name }

    private func step(_ line: String) {
        print("▸ " + line)
        fflush(nil)
    }

    private var liveLine = false

    /// A state change, as a line (the accessible description says it in words).
    private func show(_ view: FlowView) {
        endLive()
        print("  \(view.state): \(view.accessibleDescription)")
        fflush(nil)
    }

    /// The recording's live line on a terminal: the time and the last levels as bars.
    private func drawLive(_ view: FlowView) {
        guard Terminal.isInteractiveError, view.state == .recording || view.state == .locked else { return }
        Terminal.writeError("\r  ● \(formatClock(view.duration))  \(WaveformRendering.bars(view.levels, columns: 40))\u{1B}[K")
        liveLine = true
    }

    private func endLive() {
        guard liveLine else { return }
        Terminal.writeError("\r\u{1B}[K")
        liveLine = false
    }

    /// Dispatches the loop until `condition` holds; `.busy` naming `what` after `stepSeconds`.
    private func waitFor(_ what: String, _ condition: () throws(VoiceNoteError) -> Bool) throws(VoiceNoteError) {
        guard try loop.dispatch(until: condition, seconds: Self.stepSeconds) else {
            throw VoiceNoteError(.busy, "the demo waited \(Int(Self.stepSeconds)) s for \(what)")
        }
    }
}
