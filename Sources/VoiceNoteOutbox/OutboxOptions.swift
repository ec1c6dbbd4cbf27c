import VoiceNoteCore

/// How an outbox retries. A transient failure waits `min(cap, base · 2^(attempts−1))` scaled by a random factor
/// in [0.5, 1] ("equal jitter": many clients that lost the same link do not come back in step), and the next start
/// tries every waiting item at once.
public struct OutboxOptions: Sendable, Equatable {
    /// The first back-off, in seconds (0.01 … 3600).
    public private(set) var retryBase = 1.0
    /// The longest back-off, in seconds (retryBase … 86400).
    public private(set) var retryCap = 300.0

    /// The defaults: 1 s, doubling, at most 5 minutes.
    public init() {}

    /// Sets the back-off's first wait and its cap. - Throws: `.invalidArgument` out of range.
    public mutating func setRetry(base: Double, cap: Double) throws(VoiceNoteError) {
        guard base.isFinite, base >= 0.01, base <= 3600 else {
            throw VoiceNoteError(.invalidArgument, "the first back-off must be 0.01 … 3600 s, not \(base)")
        }
        guard cap.isFinite, cap >= base, cap <= 86400 else {
            throw VoiceNoteError(.invalidArgument, "the longest back-off must be \(base) … 86400 s, not \(cap)")
        }
        retryBase = base
        retryCap = cap
    }

    /// The wait after the `attempts`-th failed attempt, with jitter `random` in [0, 1].
    func backoff(attempts: Int, random: Double) -> Double {
        let doubled = retryBase * Double(1 << min(max(attempts - 1, 0), 30))
        return min(retryCap, doubled) * (0.5 + 0.5 * min(max(random, 0), 1))
    }

    /// Whether a failure may pass by itself: the link or the server (`.network`, except a 4xx other than 408 Request
    /// Timeout and 429 Too Many Requests), a busy resource, a full disk on our side. Everything else — refused
    /// credentials, a missing or oversized note, an answer without a URL — needs the host.
    static func isTransient(_ error: VoiceNoteError) -> Bool {
        if let code = error.httpCode, (400..<500).contains(code) { return code == 408 || code == 429 }
        switch error.status {
        case .network, .busy, .noSpace, .io, .noMemory: return true
        default: return false
        }
    }
}
