import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// Stream roles on a real PulseAudio server: a stream opened with a role carries `media.role` (and a name) where the
/// server's policies read it, and the server's own ducking (`module-role-ducking`, loaded here) lowers another
/// application's music while a voice message plays or records, and restores it afterwards; a stream without a role
/// (ALSA's pulse plugin) ducks nothing. Serialized: each test runs its own server.
@Suite(.serialized) struct StreamRoleTests {
    /// A server with role ducking (phone streams, playing or recording, duck music to -20 dB; a recording triggers
    /// it only with `use_source_trigger` and `global`, as PulseAudio documents) and another
    /// application's music: a 440 Hz tone, 30 s long, as a stream with the role "music".
    private func duckingServer() throws -> PulseServer {
        let server = try PulseServer()
        try server.pactl(["load-module", "module-role-ducking", "trigger_roles=phone", "ducking_roles=music",
                          "use_source_trigger=true", "global=true", "volume=-20dB"])
        let music = sine(frequency: 440, rate: server.rate, frames: server.rate * 30)
        let path = server.directory + "/music.raw"
        try music.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
        try server.playRaw(path, role: "music")
        return server
    }

    /// What the null sink plays (its monitor, captured through ALSA's plugin with no role) — the music, and our
    /// silent stream on top of it —, once the music is heard; with the music's full level.
    private func listener(_ server: PulseServer) throws -> (CaptureDevice, SampleRing, Double) {
        let device = try CaptureDevice(DeviceSelection(name: "vn_mon",
                                                       configuration: server.alsaConfiguration(pcmName: "vn_mon")))
        let ring = try SampleRing(minimumSamples: 1 << 18)
        try device.start(into: ring)
        #expect(eventually(seconds: 10) { level(device, ring) > 3000 }, "the music is not heard")
        return (device, ring, level(device, ring))
    }

    /// A ring holding six seconds of silence at 48 kHz: our stream adds nothing, so what is heard is the music.
    private func silence() throws -> SampleRing {
        let ring = try SampleRing(minimumSamples: 48_000 * 8)
        let silence = [Int16](repeating: 0, count: 48_000 * 6)
        #expect(silence.withUnsafeBufferPointer { ring.write($0) } == silence.count)
        return ring
    }

    /// The RMS level of the next 0.2 s the device captures.
    private func level(_ device: CaptureDevice, _ ring: SampleRing) -> Double {
        drain(ring)
        var samples: [Int16] = []
        collect(ring, from: device, into: &samples, count: device.sampleRate / 5, timeout: 5)
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    private func playbackSelection(_ server: PulseServer, role: String?) -> DeviceSelection {
        DeviceSelection(name: "vn_out", configuration: server.alsaConfiguration(pcmName: "vn_out",
                                                                                device: server.sinkName), role: role)
    }

    @Test func aPhoneRolePlaybackDucksTheMusicWhileItPlaysAndNotAfter() throws {
        let server = try duckingServer()
        defer { server.stop() }
        let (listener, heard, full) = try listener(server)
        defer { listener.close() }

        let device = try PlaybackDevice(playbackSelection(server, role: "phone"))
        defer { device.close() }
        #expect(device.streamRole == "phone")
        try device.start(from: try silence())

        // The server sees the role and the name, and ducks the music (-20 dB: a tenth) while the note plays.
        let ours = try server.streams(playback: true).first { $0.contains("media.name = \"Voice message\"") }
        #expect(ours?.contains("media.role = \"phone\"") == true, "\(String(describing: ours))")
        #expect(eventually(seconds: 5) { level(listener, heard) < full * 0.2 },
                "music at \(level(listener, heard)) (of \(full)) while a phone stream plays")
        #expect(device.failure == nil)

        // Stopped (corked, as a pause is): the music comes back.
        device.stop()
        #expect(eventually(seconds: 5) { level(listener, heard) > full * 0.8 },
                "music at \(level(listener, heard)) (of \(full)) after the phone stream stopped")

        // Closed: the stream leaves the server at once (not when the object goes), the counters stay readable.
        let written = device.framesWritten
        device.close()
        #expect(try server.streams(playback: true).allSatisfy { !$0.contains("media.name = \"Voice message\"") })
        #expect(written > 0 && device.framesWritten == written)
        #expect(throws: VoiceNoteError.self) { try device.start(from: try silence()) }
    }

    @Test func aStreamWithoutARoleDucksNothing() throws {
        let server = try duckingServer()
        defer { server.stop() }
        let (listener, heard, full) = try listener(server)
        defer { listener.close() }
        let device = try PlaybackDevice(playbackSelection(server, role: nil))
        defer { device.close() }
        #expect(device.streamRole == nil)
        try device.start(from: try silence())
        // Once the server lists our stream (ALSA's plugin, no role) as running, ducking would already be applied.
        #expect(eventually(seconds: 5) {
            (try? server.streams(playback: true))?.contains { $0.contains("ALSA") && $0.contains("Corked: no") } == true
        })
        let during = level(listener, heard)
        #expect(during > full * 0.8, "music at \(during) (of \(full)) beside a stream with no role")
        #expect(try server.streams(playback: true).allSatisfy { !$0.contains("media.role = \"phone\"") })
        device.stop()
    }

    @Test func aPhoneRoleRecordingDucksTheMusicWhereTheServerIsToldTo() throws {
        let server = try duckingServer()
        defer { server.stop() }
        let (listener, heard, full) = try listener(server)
        defer { listener.close() }

        // Recording the same monitor with the role: the take itself hears the music ducked.
        let selection = DeviceSelection(name: "vn_rt", configuration: server.alsaConfiguration(pcmName: "vn_rt"),
                                        role: "phone")
        let device = try CaptureDevice(selection)
        defer { device.close() }
        #expect(device.streamRole == "phone")
        let ring = try SampleRing(minimumSamples: 1 << 18)
        try device.start(into: ring)
        let ours = try server.streams(playback: false).first { $0.contains("media.name = \"Voice message recording\"") }
        #expect(ours?.contains("media.role = \"phone\"") == true, "\(String(describing: ours))")
        #expect(eventually(seconds: 5) { level(device, ring) < full * 0.2 },
                "music at \(level(device, ring)) (of \(full)) while a phone stream records")
        device.stop()
        #expect(eventually(seconds: 5) { level(listener, heard) > full * 0.8 },
                "music at \(level(listener, heard)) (of \(full)) after the recording stopped")
    }

    @Test func aRoleOnAPCMThatIsNotPulseAudioIsNotSetAndALSAOpensIt() throws {
        let selection = DeviceSelection(name: "vn_null", configuration: "pcm.vn_null { type null }", role: "phone")
        let device = try PlaybackDevice(selection)
        defer { device.close() }
        #expect(device.streamRole == nil)
        #expect(ALSA.pulseTarget(selection) == nil)
        let pulse = DeviceSelection(name: "x", configuration: "pcm.x { type pulse server \"unix:/s\" device \"d\" }")
        #expect(ALSA.pulseTarget(pulse) == PulseStream.Target(server: "unix:/s", device: "d"))
    }

    @Test func aRoleOnAnUnreachableServerFailsAsWithoutOne() throws {
        // No server at that address: libpulse cannot connect, the role is dropped (logged) and ALSA's plugin then
        // fails to open the PCM with the device error it always gave.
        let config = "pcm.vn_rt { type pulse server \"unix:/nonexistent/vn/native\" device \"vn_null.monitor\" }"
        let (error, printed) = try capturingStandardError { () -> VoiceNoteError? in
            #expect(throws: VoiceNoteError.self) {
                _ = try CaptureDevice(DeviceSelection(name: "vn_rt", configuration: config, role: "phone"))
            }
        }
        #expect(error?.status == .device)
        #expect(printed.isEmpty, "printed: \(printed)")   // libpulse's refusal and ALSA's go to the error, not stderr
        #expect(!DeviceSelection.isValidRole(""))
        #expect(!DeviceSelection.isValidRole("ph\u{0}one"))
        #expect(!DeviceSelection.isValidRole(String(repeating: "a", count: 65)))
        #expect(DeviceSelection.isValidRole("phone"))
    }
}
