import Synchronization
import VoiceNoteCore

/// A source whose reads never wait (a file, memory, host callbacks) made cancellable by its host: after
/// `cancelReads()` its next read throws `.cancelled` (once), so a long decode of a local file ends at its next read
/// as one of a download does. `cancel()`, what a player calls to wake a waiting read, is passed on unchanged.
public final class CancellableSource: ByteSource {
    private let base: any ByteSource
    private let cancelRequested = Atomic<Bool>(false)

    /// Wraps `base`.
    public init(_ base: any ByteSource) {
        self.base = base
    }

    public var name: String { base.name }
    public var size: Int64? { base.size }
    public var position: Int64 { base.position }
    public var keptAnalysis: KeptAnalysis? { base.keptAnalysis }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        if cancelRequested.exchange(false, ordering: .acquiringAndReleasing) {
            throw VoiceNoteError(.cancelled, "reading \(base.name) was cancelled")
        }
        return try base.read(into: buffer)
    }

    public func seek(to offset: Int64) throws(VoiceNoteError) {
        try base.seek(to: offset)
    }

    public func cancel() {
        base.cancel()
    }

    /// Makes the next read throw `.cancelled`; any thread, while another reads.
    public func cancelReads() {
        cancelRequested.store(true, ordering: .releasing)
    }
}
