import CRealtime
import VoiceNoteCore

/// The lock-free single-producer single-consumer ring between a real-time audio thread and a worker thread
/// (C11 atomics in CRealtime, so the audio side never allocates, locks or enters the Swift runtime).
/// One thread writes, one thread reads.
public final class SampleRing: @unchecked Sendable {
    /// The C ring, for C loops (the ALSA capture loop) that write to it directly.
    public let raw: UnsafeMutablePointer<vnshim_ring>

    /// A ring with room for at least `minimumSamples` samples.
    public init(minimumSamples: Int) throws(VoiceNoteError) {
        guard minimumSamples > 0, let ring = vnshim_ring_create(minimumSamples) else {
            throw VoiceNoteError(.noMemory, "cannot allocate a ring of \(minimumSamples) samples")
        }
        raw = ring
    }

    deinit { vnshim_ring_destroy(raw) }

    /// The ring's size in samples.
    public var capacity: Int { raw.pointee.capacity }

    /// Samples waiting to be read.
    public var available: Int { vnshim_ring_available(raw) }

    /// Producer: copies in as many of `samples` as fit; returns that count.
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        return vnshim_ring_write(raw, base, samples.count)
    }

    /// Consumer: copies out up to `buffer.count` samples; returns that count.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return vnshim_ring_read(raw, base, buffer.count)
    }

    /// Consumer: waits up to `timeoutMilliseconds` for a write or a `notify`; false on timeout.
    public func wait(timeoutMilliseconds: Int32) -> Bool {
        vnshim_ring_wait(raw, timeoutMilliseconds) != 0
    }

    /// Wakes the consumer without data (a stop request, a device error).
    public func notify() {
        vnshim_ring_notify(raw)
    }
}
