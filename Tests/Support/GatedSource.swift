import Foundation
import VoiceNoteCore
import VoiceNoteSources

/// Bytes in memory whose reads block, once `gate` bytes have been read in all, until the test opens it (or it is
/// cancelled, or 20 s pass): holds a player in `loading` (a gate at 0) or in `playing` (a gate past what opening
/// reads: the whole file once, for the length rule, and some pages at its end) on an unpaced speaker.
public final class GatedSource: ByteSource, @unchecked Sendable {
    public let name: String
    public let bytes: [UInt8]
    public private(set) var position: Int64 = 0
    /// Bytes read so far, over every pass.
    public private(set) var totalRead = 0
    private let condition = NSCondition()
    private var gate: Int
    private var cancelled = false
    /// Set once a read waits at the gate.
    private(set) var waiting = false

    public init(name: String = "gated", bytes: [UInt8], gate: Int) {
        self.name = name
        self.bytes = bytes
        self.gate = gate
    }

    public convenience init(path: String, gate: Int) throws {
        try self.init(name: path, bytes: Array(Data(contentsOf: URL(fileURLWithPath: path))), gate: gate)
    }

    public var size: Int64? { Int64(bytes.count) }

    public var isWaiting: Bool { condition.withLock { waiting } }

    /// Lets `count` more bytes through, then blocks again.
    public func allow(_ count: Int) {
        condition.withLock {
            gate = totalRead + count
            condition.broadcast()
        }
    }

    /// Lets every read through.
    public func open() {
        condition.withLock {
            gate = Int.max
            condition.broadcast()
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        let start = Int(position)
        let wasCancelled: Bool = condition.withLock {
            let deadline = Date().addingTimeInterval(20)
            while totalRead >= gate && !cancelled {
                waiting = true
                if !condition.wait(until: deadline) { break }
            }
            waiting = false
            return cancelled
        }
        if wasCancelled { throw VoiceNoteError(.cancelled, "\(name) was cancelled") }
        let room = condition.withLock { gate == Int.max ? Int.max : max(0, gate - totalRead) }
        let count = max(0, min(bytes.count - start, buffer.count, room))
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
        position += Int64(count)
        condition.withLock { totalRead += count }
        return count
    }

    public func seek(to offset: Int64) throws(VoiceNoteError) {
        guard offset >= 0 else { throw VoiceNoteError(.invalidArgument, "negative offset") }
        position = min(offset, Int64(bytes.count))
    }

    public func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }
}
