import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteWaveform
@testable import VoiceNoteRecorder
import VoiceNoteSources

/// The recorder against ALSA's `file` plugin: a virtual microphone that delivers as fast as it is read.
@Suite struct FileMicrophoneRecorderTests {
    @Test func aTakeHoldsExactlyTheCapturedFramesAndTheInputAudio() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 4))
        let log = try EventLog(recorder)
        try recorder.begin()
        let result = try #require(log.finished())
        #expect(log.wait { _ in log.stopped })
        #expect(result.duration == 4)
        #expect(result.path.hasSuffix(".ogg") && !result.path.contains(".part"))
        #expect(result.size == (try FileSystem.size(of: result.path)))
        let decoded = try decode(result.path)
        #expect(decoded.samples.count == 4 * 48_000)
        // The file microphone is not paced: when the encoder falls a whole device buffer behind (a machine loaded by
        // sanitizers and parallel builds), periods are dropped and counted as overruns, as a real device would drop
        // them, and the take is no longer the input's prefix (its length stays exact, above). Said when it happens.
        let overruns = log.all.compactMap { if case .context(let c) = $0 { c.overruns } else { nil } }.max() ?? 0
        if overruns == 0 {
            #expect(bestCorrelation(decoded.samples, Array(input.samples.prefix(4 * 48_000))) >= 0.9)
        } else {
            print("aTakeHoldsExactlyTheCapturedFramesAndTheInputAudio: \(overruns) overruns dropped input; the audio is not compared")
        }
        // The take's waveform is the waveform algorithm on its own pages decoded as waveform() decodes the file: the same values.
        let fromFile = try WaveformAnalysis.waveform(of: FileSource(path: result.path))
        #expect(result.waveform.count == 100)
        let differences = zip(result.waveform, fromFile).map { abs($0 - $1) }
        #expect(differences.allSatisfy { $0 <= 0.001 }, "take vs file: \(differences.max() ?? 0)")
        #expect(log.all.contains(.maximumDurationReached))
        let steps = log.all.filter { if case .context(let c) = $0 { c.state == .recording && c.duration > 0 } else { false } }
        #expect(!steps.isEmpty)
        #expect(recorder.levels(last: 1000).count >= 10)  // one per 100 ms meter step, coalescing only the events
        #expect(recorder.context.state == .stopped)
    }

    @Test func beforeCaptureSeesTheFileBeforeAnySampleOnAFastDevice() throws {
        // A device faster than real time captures seconds in milliseconds: what names the take (a draft record) must
        // be written in this hook, which runs once the `.part` exists and before capture starts.
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 2))
        let log = try EventLog(recorder)
        var seen: (path: String, exists: Bool, state: RecorderState, events: Int)?
        try recorder.begin(in: directory + "/named") { path in
            seen = (path, FileSystem.exists(path), recorder.context.state, log.all.count)
        }
        let result = try #require(log.finished())
        let hook = try #require(seen)
        #expect(hook.path.hasPrefix(directory + "/named/") && hook.path.hasSuffix(".ogg.part"))
        #expect(hook.exists)
        #expect(hook.state == .stopped && hook.events == 0, "the recording context and any audio come after the hook")
        #expect(result.path + ".part" == hook.path && result.duration == 2)
    }

    @Test func tinyTakesOnAFastDeviceAlwaysFinish() throws {
        // The take can end by itself before begin() returns: it must still finish, exactly once, every time.
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        for _ in 0..<40 {
            let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 0.03))
            let log = try EventLog(recorder)
            try recorder.begin()
            let result = try #require(log.finished(seconds: 10))
            #expect(result.duration == 0.03)
            #expect(log.wait(seconds: 10) { _ in log.stopped })
            let states = log.all.compactMap { if case .context(let c) = $0 { c.state } else { nil } }
            #expect(states.first == .recording && states.last == .stopped)
            recorder.close()
        }
    }

    @Test func aacTakesDecodeToTheirLength() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        var settings = configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 2)
        settings.format = .aac
        let recorder = try Recorder(configuration: settings)
        let log = try EventLog(recorder)
        try recorder.begin()
        let result = try #require(log.finished())
        #expect(result.path.hasSuffix(".aac"))
        let decoded = try Fixtures.referencePCM(result.path, rate: 48_000, channels: 1)
        // ADTS carries no priming information: decoders output the encoder's 1024 priming samples too.
        #expect(abs(decoded.count - 1024 - 2 * 48_000) < 1024)
        // The waveform sent is the one waveform() computes from the file.
        let fromFile = try WaveformAnalysis.waveform(of: FileSource(path: result.path))
        #expect(zip(result.waveform, fromFile).allSatisfy { abs($0 - $1) <= 0.001 })
    }

    @Test(arguments: [44_100, 16_000])
    func aDeviceThatRefuses48kRecordsAtItsOwnRate(rate: Int) throws {
        let directory = try Fixtures.temporaryDirectory()
        let sine = directory + "/sine.raw"
        try Fixtures.run(["sox", "-n", "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1", "-r", String(rate),
                          sine, "synth", "3", "sine", "1000", "vol", "0.5"])
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: sine, rate: rate), maximum: 2))
        let log = try EventLog(recorder)
        try recorder.begin()
        let result = try #require(log.finished())
        #expect(result.duration == 2)
        let decoded = try decode(result.path)
        #expect(abs(Double(decoded.samples.count) / Double(decoded.rate) - 2) < 0.021)
        let middle = Array(decoded.samples.dropFirst(decoded.rate / 2).prefix(decoded.rate))
        let crossings = zip(middle, middle.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(Double(crossings) / 2 - 1000) < 15)
    }

    @Test func misuseAndErrorsLeaveTheRecorderStopped() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 5))
        #expect(status { try recorder.pause() } == .misuse)
        #expect(status { try recorder.resume() } == .misuse)
        #expect(status { try recorder.stop() } == .misuse)
        #expect(status { try recorder.cancel() } == .misuse)
        try recorder.begin()
        #expect(status { try recorder.begin() } == .misuse)
        try recorder.cancel()
        #expect(recorder.context.state == .stopped)
        #expect(try FileSystem.entries(of: directory).filter { $0.hasSuffix(".ogg") || $0.hasSuffix(".part") }.isEmpty)

        let unknown = try Recorder(configuration: configuration(directory: directory, device: DeviceSelection(name: "vn_no_such_device")))
        #expect(status { try unknown.begin() } == .device)
        #expect(unknown.context.state == .stopped)
        #expect(status { _ = try Recorder(configuration: { var c = RecorderConfiguration(); c.meterInterval = 0; return c }()) } == .invalidArgument)
    }

    @Test func aRefusingSessionHookMakesBeginBusyAndOpensNoDevice() throws {
        let directory = try Fixtures.temporaryDirectory()
        // This device cannot open (its infile is missing): had begin opened it, the status would be .device.
        var settings = configuration(directory: directory, device: fileMicrophone(infile: directory + "/missing.raw"))
        let asked = Locked<[SessionKind]>([])
        settings.sessionHooks = SessionHooks(activate: { kind in asked.withLock { $0.append(kind) }; return false })
        let recorder = try Recorder(configuration: settings)
        #expect(status { try recorder.begin() } == .busy)
        #expect(asked.withLock { $0 } == [.recording])
        #expect(recorder.context.state == .stopped)
    }

    @Test func sessionHooksBracketTheDevice() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        var settings = configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 1)
        let calls = Locked<[String]>([])
        settings.sessionHooks = SessionHooks(activate: { _ in calls.withLock { $0.append("activate") }; return true },
                                             deactivate: { _ in calls.withLock { $0.append("deactivate") } })
        let recorder = try Recorder(configuration: settings)
        let log = try EventLog(recorder)
        try recorder.begin()
        _ = try #require(log.finished())
        #expect(log.wait { _ in calls.withLock { $0 } == ["activate", "deactivate"] })
    }

    @Test func destroyWhileRecordingFinishesTheFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        var recorder: Recorder? = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 5))
        try recorder?.begin()
        #expect(eventually { (recorder?.context.duration ?? 0) >= 1 })
        let part = recorder?.context.path ?? ""
        recorder?.close()
        recorder = nil
        let kept = String(part.dropLast(".part".count))
        #expect(FileManager.default.fileExists(atPath: kept))
        #expect(!FileManager.default.fileExists(atPath: part))
        #expect(try decode(kept).samples.count >= 48_000)
    }

    @Test func takesShorterThanTheMinimumAreDiscarded() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        var settings = configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 0.5)
        settings.minimumDuration = 1
        let recorder = try Recorder(configuration: settings)
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(log.wait { $0.contains(.tooShort(duration: 0.5)) })
        #expect(log.wait { _ in log.stopped })
        #expect(!log.all.contains { if case .finished = $0 { true } else { false } })
        #expect(try FileSystem.entries(of: directory).filter { $0.hasSuffix(".ogg") || $0.hasSuffix(".part") }.isEmpty)
    }

    @Test(.enabled(if: getuid() == 0, "mounting a 64 KiB tmpfs needs root (CI runs as root)"))
    func aFullDiskEndsTheTakeWithWhatFitted() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let small = directory + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try Fixtures.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small])
        defer { _ = try? Fixtures.run(["umount", "-l", small]) }
        // 60 s of audio does not fit in 64 KiB at 32 kbit/s: loop the speech file long enough.
        let long = directory + "/long.raw"
        try Fixtures.run(["sox", "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1", "-r", "48000", input.path,
                          "-t", "raw", long, "repeat", "12"])
        let recorder = try Recorder(configuration: configuration(directory: small, device: fileMicrophone(infile: long), maximum: 60))
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(log.wait { _ in log.stopped })
        #expect(log.failures.map(\.status) == [.noSpace])
        let result = try #require(log.finished(seconds: 1))
        let decoded = try decode(result.path)
        #expect(decoded.samples.count > 48_000)
        // The finished event tells what the file holds (less than was captured), and the file is whole.
        #expect(decoded.samples.count == Int((result.duration * 48_000).rounded()))
        #expect(result.size == (try FileSystem.size(of: result.path)))
        #expect(recorder.context.duration > result.duration)
    }
}
