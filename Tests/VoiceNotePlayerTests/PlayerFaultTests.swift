import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteSources
import VoiceNoteTestSupport

/// Devices that fail, files that are bad, hosts whose hooks refuse.
@Suite struct PlayerFaultTests {
    private func faultSpeaker(_ faults: [FaultMicrophone.Fault], directory: String, openError: Int32 = 0) throws -> DeviceSelection {
        DeviceSelection(name: "vn_fault_spk", configuration: try FaultMicrophone.speakerConfiguration(
            name: "vn_fault_spk", outfile: directory + "/heard.raw", faults: faults, openError: openError))
    }

    @Test func aLostDeviceFailsAndPausesWhereTheListenerWas() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 3), in: directory)
        let player = try makePlayer(try faultSpeaker([.unplug(at: 48_000)], directory: directory))
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        let error = try #require(log.waitFailure())
        #expect(error.status == .device)
        let paused = try #require(log.wait(for: .paused))
        #expect((0.9...1.3).contains(paused.currentTime), "paused at \(paused.currentTime)")
        #expect(player.context.lastError?.status == .device)
        #expect(log.finishedCount == 0)
    }

    @Test(arguments: [FaultMicrophone.Fault.xrun(at: 24_000), .suspend(at: 24_000)])
    func underrunsAndSuspendsAreRecovered(fault: FaultMicrophone.Fault) throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 1), in: directory)
        let player = try makePlayer(try faultSpeaker([fault], directory: directory))
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        #expect(log.waitFinished())
        #expect(log.failures.isEmpty)
    }

    @Test func aDeviceThatWillNotOpenFailsThePlayAndPauses() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 1), in: directory)
        let player = try makePlayer(DeviceSelection(name: "vn_no_such_pcm", configuration: "pcm.vn_other { type null }"))
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        #expect(log.waitFailure()?.status == .device)
        #expect(log.wait(for: .paused) != nil)
        // Playing again tries again, and fails again the same way.
        try player.play()
        #expect(log.wait { $0.filter { if case .failed = $0 { true } else { false } }.count == 2 })
    }

    @Test func garbageFailsWithFormatAndATruncatedOpusPlaysWhatItHas() throws {
        let directory = try Fixtures.temporaryDirectory()
        let garbage = directory + "/garbage.ogg"
        try Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: garbage))
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(garbage))
        #expect(log.waitFailure()?.status == .format)
        #expect(log.wait(for: .notLoaded, after: 2)?.location == garbage)

        let whole = try Data(contentsOf: URL(fileURLWithPath: try writeOpus(tone(440, seconds: 4), in: directory)))
        let truncated = directory + "/truncated.ogg"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: truncated))
        try player.load(.file(truncated))
        #expect(log.waitFinished())
        let played = Double(try speaker.samples().count) / 48_000
        #expect((1.2...2.8).contains(played), "played \(played) s of a truncated 4 s note")
    }

    @Test func aHostSourceWhoseReadFailsEndsInAFailedEvent() throws {
        let directory = try Fixtures.temporaryDirectory()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: try writeOpus(tone(440, seconds: 8), in: directory))))
        let reads = Locked(0)
        // Opening reads the file once for its length; the decoder's own pass then fails half-way.
        let failAfter = bytes.count + bytes.count / 2
        final class Cursor: @unchecked Sendable { var position = 0 }
        let cursor = Cursor()
        let source = CallbackSource(name: "host", size: Int64(bytes.count), read: { buffer in
            let total = reads.withLock { total in total += buffer.count; return total }
            if total > failAfter { return -1 }
            let count = min(buffer.count, bytes.count - cursor.position)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[cursor.position..<(cursor.position + count)])) }
            cursor.position += count
            return count
        }, seek: { offset in
            guard offset <= Int64(bytes.count) else { return false }
            cursor.position = Int(offset)
            return true
        })
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.source(source))
        let failure = try #require(log.waitFailure())
        #expect(failure.status == .io || failure.status == .format, "\(failure)")
        #expect(log.wait { _ in player.context.state == .paused || player.context.state == .notLoaded })
    }

    @Test func theActivateHookMayRefuseAndDeactivateFollowsEveryGrantedSession() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 0.5), in: directory)
        let allow = Locked(false), activations = Locked(0), deactivations = Locked(0)
        let hooks = SessionHooks(activate: { kind in
            #expect(kind == .playback)
            guard allow.withLock({ $0 }) else { return false }
            activations.withLock { $0 += 1 }
            return true
        }, deactivate: { _ in deactivations.withLock { $0 += 1 } })
        let player = try makePlayer(FileSpeaker(directory: directory).selection, hooks: hooks)
        defer { player.close() }
        let log = try PlayerLog(player)
        expectError(.busy) { try player.load(.file(path)) }
        #expect(player.context.state == .notLoaded && player.context.location.isEmpty)
        try player.load(.file(path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        expectError(.busy) { try player.play() }
        #expect(player.context.state == .paused)
        allow.withLock { $0 = true }
        try player.play()
        #expect(log.waitFinished())
        #expect(eventually { deactivations.withLock { $0 } == 1 })
        #expect(activations.withLock { $0 } == 1)
    }

    @Test func destroyingFromInsideACallbackReturns() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 5), in: directory)
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        let closed = Locked(false)
        _ = try player.subscribe({ event in
            if case .context(let context) = event, context.state == .playing {
                player.close()
                closed.withLock { $0 = true }
            }
        })
        try player.load(.file(path))
        #expect(eventually { closed.withLock { $0 } })
        expectError(.misuse) { try player.play() }
    }
}
