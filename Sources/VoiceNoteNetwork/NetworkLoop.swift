import CCurlLoader
import VoiceNoteCore

/// The one thread (`vn-network`) that drives every HTTP transfer of the process, through libcurl's multi
/// interface: `start` and `cancel` only queue work and wake it with `curl_multi_wakeup`, so no caller ever waits on
/// the network, and a cancelled transfer is gone within one turn of the loop. The loop also enforces each
/// transfer's stall timeout (no byte for that long → `.network`), on the transfer's clock (`HTTPOptions.clock`): each
/// turn, at least every 0.1 s, compares that clock's time with the transfer's last byte, so a manual clock's advance
/// is seen at the next turn without waking the thread. The thread starts with the first transfer and
/// lives as long as the process; it sleeps on a condition while there is nothing to do.
final class NetworkLoop: @unchecked Sendable {
    private static let instance = Locked<NetworkLoop?>(nil)

    /// The process's loop, made (and libcurl loaded) on first use.
    /// - Throws: `.unsupported` when libcurl cannot be loaded; `.noMemory` when the loop cannot be made.
    static func shared() throws(VoiceNoteError) -> NetworkLoop {
        try CurlLibrary.require()
        return try instance.withLock { (loop) throws(VoiceNoteError) -> NetworkLoop in
            if let loop { return loop }
            let made = try NetworkLoop()
            loop = made
            return made
        }
    }

    private let monitor = Monitor()
    private let multi: UnsafeMutableRawPointer
    private var queued: [HTTPTransfer] = []
    private var cancelling: [HTTPTransfer] = []
    /// Transfers whose growing body has more to send (their writer woke the loop): unpaused at the next turn.
    private var resuming: [HTTPTransfer] = []
    private var active: [HTTPTransfer] = []
    private var thread: LibraryThread?
    private let admissionProbe = Locked<(@Sendable (HTTPTransfer) -> Void)?>(nil)

    private init() throws(VoiceNoteError) {
        guard let multi = curl_multi_init() else { throw VoiceNoteError(.noMemory, "curl_multi_init failed") }
        self.multi = multi
        thread = try LibraryThread(name: "vn-network") { [unowned self] in run() }
    }

    /// Queues `transfer`; its handlers run on the loop's thread from now until it finishes or is cancelled.
    func start(_ transfer: HTTPTransfer) {
        monitor.locked {
            transfer.stage = .queued
            transfer.lastActivity = transfer.options.clock.now
            queued.append(transfer)
            monitor.broadcast()
        }
        curl_multi_wakeup(multi)
    }

    /// Stops `transfer`: when this returns, none of its handlers runs again (called from one of its own
    /// handlers, on the loop's thread, it only marks it). Its `finished` handler is not called.
    func cancel(_ transfer: HTTPTransfer) {
        let onLoop = thread?.isCurrent ?? false
        let wait = monitor.locked { () -> Bool in
            switch transfer.stage {
            case .new, .done: return false
            case .queued:
                queued.removeAll { $0 === transfer }
                transfer.stage = .done
                return false
            case .admitting, .active:  // the loop decides under this monitor: never added, or retired at once
                if !cancelling.contains(where: { $0 === transfer }) { cancelling.append(transfer) }
                return !onLoop
            case .finishing: return !onLoop
            }
        }
        guard wait else { return }
        curl_multi_wakeup(multi)
        monitor.locked { while transfer.stage != .done { monitor.wait() } }
    }

    /// Wakes a transfer paused for its growing body: the loop unpauses it at its next turn. Any thread; never waits
    /// (the body's writer calls it, on the encoder thread).
    func resume(_ transfer: HTTPTransfer) {
        monitor.locked {
            if !resuming.contains(where: { $0 === transfer }) { resuming.append(transfer) }
        }
        curl_multi_wakeup(multi)
    }

    /// For tests: `probe` runs on the loop's thread for each transfer it has taken off the queue, before adding
    /// it to the multi handle (where a racing `cancel` used to be lost); nil removes it.
    func setAdmissionProbe(_ probe: (@Sendable (HTTPTransfer) -> Void)?) { admissionProbe.withLock { $0 = probe } }

    /// For tests: whether `cancel(transfer)` has been called and taken effect or is waiting for the loop.
    func isCancelRequested(_ transfer: HTTPTransfer) -> Bool {
        monitor.locked { transfer.stage == .done || cancelling.contains { $0 === transfer } }
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let (adding, removing, unpausing) = monitor.locked { () -> ([HTTPTransfer], [HTTPTransfer], [HTTPTransfer]) in
                while queued.isEmpty && cancelling.isEmpty && active.isEmpty { monitor.wait() }
                defer {
                    queued.removeAll()
                    cancelling.removeAll()
                    resuming.removeAll()
                }
                for transfer in queued { transfer.stage = .admitting }
                return (queued, cancelling, resuming.filter { $0.stage == .active })
            }
            for transfer in removing { retire(transfer, reporting: nil) }
            for transfer in adding { admit(transfer) }
            for transfer in unpausing where !removing.contains(where: { $0 === transfer }) { transfer.resumeBody() }
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE,
                      let transfer = monitor.locked({ active.first { $0.easy == message.pointee.easy_handle } })
                else { continue }
                let code = message.pointee.data.result
                if code == CURLE_OK {
                    do throws(VoiceNoteError) {
                        if try transfer.followRedirect(), let easy = transfer.easy {
                            curl_multi_remove_handle(multi, easy)  // the same handle, pointed at the next hop
                            if curl_multi_add_handle(multi, easy) == CURLM_OK { continue }
                            retire(transfer, reporting: VoiceNoteError(.noMemory, "curl_multi_add_handle failed"))
                            continue
                        }
                    } catch {
                        retire(transfer, reporting: error)
                        continue
                    }
                }
                retire(transfer, reporting: transfer.outcome(code))
            }
            enforceStallTimeouts()
            curl_multi_poll(multi, nil, 0, 100, nil)
        }
    }

    /// Adds a transfer taken off the queue to the multi handle, unless it was cancelled meanwhile: the check and
    /// the addition happen under the monitor `cancel` takes, so a transfer cancelled before it is added never
    /// sends a byte, and one cancelled after is in `cancelling` and retired before the next `curl_multi_perform`.
    private func admit(_ transfer: HTTPTransfer) {
        admissionProbe.withLock { $0 }?(transfer)
        do throws(VoiceNoteError) {
            let easy = try transfer.prepare()
            try monitor.locked { () throws(VoiceNoteError) in
                if let index = cancelling.firstIndex(where: { $0 === transfer }) {
                    cancelling.remove(at: index)
                    transfer.stage = .done
                    monitor.broadcast()
                    return
                }
                guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
                    throw VoiceNoteError(.noMemory, "curl_multi_add_handle failed")
                }
                transfer.stage = .active
                active.append(transfer)
            }
            if case .growing(let file)? = transfer.requestBody?.content {
                // Strong captures (the loop lives as long as the process; a weak reference would give it a side
                // table LeakSanitizer reports): the cycle file → wake → transfer → body → file is broken by
                // `retire`, which every admitted transfer goes through.
                file.setWake { [self, transfer] in resume(transfer) }
            }
        } catch {
            let report = monitor.locked { () -> Bool in
                let wasCancelled = cancelling.contains { $0 === transfer }
                cancelling.removeAll { $0 === transfer }
                transfer.stage = .finishing
                return !wasCancelled
            }
            if report { transfer.handlers.finished(error) }
            monitor.locked {
                transfer.stage = .done
                monitor.broadcast()
            }
        }
    }

    /// Takes a transfer off the multi handle; reports `outcome` unless it was cancelled (then `outcome` is nil
    /// and nothing is reported).
    private func retire(_ transfer: HTTPTransfer, reporting outcome: VoiceNoteError??) {
        let cancelled = monitor.locked { () -> Bool in
            guard transfer.stage == .active else { return true }
            active.removeAll { $0 === transfer }
            let wasCancelled = cancelling.contains { $0 === transfer } || outcome == nil
            cancelling.removeAll { $0 === transfer }
            transfer.stage = .finishing
            return wasCancelled
        }
        if let easy = transfer.easy { curl_multi_remove_handle(multi, easy) }
        if case .growing(let file)? = transfer.requestBody?.content { file.setWake(nil) }
        if !cancelled, let outcome { transfer.handlers.finished(outcome) }
        monitor.locked {
            transfer.stage = .done
            monitor.broadcast()
        }
    }

    /// Fails every transfer that has had no byte for longer than its stall timeout (on its own clock); one paused
    /// for its growing body waits for its writer, not the server, and is not stalled; one whose connection's send
    /// queue drains (the peer acknowledges bytes libcurl handed over earlier) is moving.
    private func enforceStallTimeouts() {
        for transfer in monitor.locked({ active }) { transfer.noteSendQueue() }
        let stalled = monitor.locked {
            active.filter { !$0.waitingForBody && $0.options.clock.now - $0.lastActivity > $0.options.stallTimeout }
        }
        for transfer in stalled {
            let seconds = transfer.options.stallTimeout
            retire(transfer, reporting: VoiceNoteError(
                .network, "\(transfer.method) \(Location.redacted(transfer.url)): no data for \(seconds) s (stalled)"))
        }
    }
}
