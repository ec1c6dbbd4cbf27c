#if canImport(Glibc)
import Glibc
#endif
import CDesktopBus
import VoiceNoteCore

/// The desktop's other media players, paused while voicenote needs the room (docs/desktop.md): `hold` pauses every
/// MPRIS player on the session bus that is playing, `release` (the last hold's) resumes exactly those — not the ones
/// that were paused already, nor this process's own players. Holds nest (a take and a note at once pause once).
///
/// Every bus call runs on this object's own thread (`vn-players`), never the caller's, and waits at most
/// `callTimeout` for all the players at once: a player that hangs costs that wait, never a take. Without a session
/// bus (or sd-bus) nothing is paused, and the log says why, once.
public final class OtherPlayers: @unchecked Sendable {  // `bus` and `failureLogged` are the worker's alone
    /// The process's one: holds of its recorders and players nest here, so a note ending during a take never
    /// resumes the music the take paused.
    public static let shared = OtherPlayers()

    /// The longest a round waits for the players' answers, seconds.
    public static let callTimeout = 0.25

    private struct State {
        var holds = 0
        /// What the last pause round paused, until a resume round plays them.
        var paused: [String] = []
    }

    private let worker = SerialWorker(name: "vn-players")
    private let state = Locked(State())
    private let roundsDone = Monitor()
    /// Rounds finished (one per `hold` and `release`), guarded by `roundsDone`.
    private nonisolated(unsafe) var rounds = 0
    private nonisolated(unsafe) var failureLogged = false

    /// Nothing is asked of the bus until the first `hold`.
    public init() {}

    /// The players the last hold paused and no release has resumed yet (bus names).
    public var paused: [String] { state.withLock { $0.paused } }

    /// Pauses the other players that are playing, when this is the first hold; returns at once.
    public func hold() {
        let first = state.withLock { state -> Bool in
            state.holds += 1
            return state.holds == 1
        }
        worker.enqueue { [self] in first ? pauseRound() : finishRound() }
    }

    /// Ends a hold; the last one resumes exactly the players the first paused. Returns at once; more releases than
    /// holds do nothing.
    public func release() {
        let last = state.withLock { state -> Bool in
            guard state.holds > 0 else { return false }
            state.holds -= 1
            return state.holds == 0
        }
        worker.enqueue { [self] in last ? resumeRound() : finishRound() }
    }

    /// Waits until `count` rounds (one per `hold` and `release` call) have run, at most `seconds`; whether they did.
    public func waitForRounds(_ count: Int, seconds: Double) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(max(0, seconds) * 1e9)
        return roundsDone.locked { () -> Bool in
            while rounds < count {
                guard roundsDone.wait(untilMonotonicNanoseconds: deadline) else { return rounds >= count }
            }
            return true
        }
    }

    /// Resumes what is still paused (a take ended by its recorder's destroy must not leave the user's music paused)
    /// and stops the thread; waits for that.
    public func close() {
        let wasHeld = state.withLock { state -> Bool in
            defer { state.holds = 0 }
            return state.holds > 0
        }
        if wasHeld { worker.enqueue { [self] in resumeRound() } }
        worker.finish()
    }

    // MARK: - Rounds (the worker's thread)

    private func pauseRound() {
        defer { finishRound() }
        guard let bus = connect() else { return }
        let own = MPRISService.ownNames
        let names = listNames(bus).filter { !own.contains($0) }
        guard !names.isEmpty else { return }
        let statuses = call(bus, names) { names, count, statuses in
            vnbus_mpris_statuses(bus.connection, names, count, Self.timeoutMicroseconds, statuses)
        }
        let playing = zip(names, statuses).filter { $0.1 == Int32(VNBUS_MPRIS_PLAYING) }.map(\.0)
        guard !playing.isEmpty else { return }
        let results = call(bus, playing) { names, count, results in
            "Pause".withCString { vnbus_mpris_call_all(bus.connection, names, count, $0, Self.timeoutMicroseconds, results) }
        }
        let paused = zip(playing, results).filter { $0.1 == 0 }.map(\.0)
        for (name, result) in zip(playing, results) where result != 0 {
            Log.write(.info, "other players: \(name) did not pause: \(SessionBus.describe(result))")
        }
        state.withLock { $0.paused += paused }
    }

    private func resumeRound() {
        defer { finishRound() }
        let paused = state.withLock { state -> [String] in
            defer { state.paused = [] }
            return state.paused
        }
        guard !paused.isEmpty, let bus = connect() else { return }
        let results = call(bus, paused) { names, count, results in
            "Play".withCString { vnbus_mpris_call_all(bus.connection, names, count, $0, Self.timeoutMicroseconds, results) }
        }
        for (name, result) in zip(paused, results) where result != 0 {
            Log.write(.info, "other players: \(name) did not resume: \(SessionBus.describe(result))")
        }
    }

    private func finishRound() {
        roundsDone.locked {
            rounds += 1
            roundsDone.broadcast()
        }
    }

    private static var timeoutMicroseconds: UInt64 { UInt64(callTimeout * 1e6) }

    /// A connection for one round (closed with it: nothing of voicenote stays on the bus between takes).
    private func connect() -> SessionBus? {
        do throws(VoiceNoteError) {
            return try SessionBus()
        } catch {
            if !failureLogged {
                failureLogged = true
                Log.write(.warning, "other players: not paused: \(error.message)")
            }
            return nil
        }
    }

    private func listNames(_ bus: SessionBus) -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = vnbus_mpris_names(bus.connection, Self.timeoutMicroseconds, &list)
        defer { vnbus_free_names(list) }
        guard count > 0, let list else { return [] }
        return (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
    }

    /// Runs a call over `names` as C strings, with one Int32 out per name.
    private func call(_ bus: SessionBus, _ names: [String],
                      _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>, Int, UnsafeMutablePointer<Int32>) -> Int32) -> [Int32] {
        var pointers = names.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        var out = [Int32](repeating: -1, count: names.count)
        let status = pointers.withUnsafeMutableBufferPointer { names in
            out.withUnsafeMutableBufferPointer { out in body(names.baseAddress!, names.count, out.baseAddress!) }
        }
        if status < 0 { Log.write(.info, "other players: \(SessionBus.describe(status))") }
        return out
    }
}
