import CVoiceNote
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// The object behind a `vn_source *`: a byte source used by one call at a time (the mutex enforces it), and the
/// host's release function for callback sources.
///
/// A player that loads the source claims it (`HeldSource`): until the claim is released (the player loads another
/// location or is destroyed), every other use of the handle (`with`, another player's claim) fails with `.busy`.
final class SourceHandle: Sendable {
    private let source: Locked<UnsafeTransfer<any ByteSource>>
    /// The same source, for `cancel()` only (the one call another thread may make while a read runs).
    private let cancellable: UnsafeTransfer<any ByteSource>
    /// For a source whose reads never wait (a file, memory, host callbacks): what `cancel()` makes fail instead.
    private let local: UnsafeTransfer<CancellableSource>?
    private let release: (@Sendable () -> Void)?
    /// The source's name (a path, "memory", the host's label), for the player's context.
    let name: String
    /// The `HeldSource` that holds the claim, if any.
    private let claim = Locked<ObjectIdentifier?>(nil)

    init(_ source: any ByteSource, release: (@Sendable () -> Void)? = nil) {
        // A download's reads wait and wake on `cancel()`; the others are made to fail at their next read.
        let local = source is any ArrivingSource ? nil : CancellableSource(source)
        let used: any ByteSource = local ?? source
        self.source = Locked(UnsafeTransfer(used))
        cancellable = UnsafeTransfer(used)
        self.local = local.map { UnsafeTransfer($0) }
        name = source.name
        self.release = release
    }

    deinit { release?() }

    /// Runs `body` with the source, excluding other calls on it; `.busy` while a player holds it.
    func with<T>(_ body: (any ByteSource) throws(VoiceNoteError) -> T) throws(VoiceNoteError) -> T {
        guard claim.withLock({ $0 }) == nil else {
            throw VoiceNoteError(.busy, "the source is held by a player (until it loads another location or is destroyed)")
        }
        return try withHeldSource(body)
    }

    /// Runs `body` with the source, excluding other calls on it, whoever holds the claim (for `HeldSource`).
    fileprivate func withHeldSource<T>(_ body: (any ByteSource) throws(VoiceNoteError) -> T) throws(VoiceNoteError) -> T {
        try source.withLock { (transfer) throws(VoiceNoteError) -> T in try body(transfer.value) }
    }

    /// Wakes a read of the source that waits (see `ByteSource.cancel`), without taking the lock that read holds: what
    /// a player asks of the source it plays.
    fileprivate func wake() {
        cancellable.value.cancel()
    }

    /// `vn_source_cancel`: wakes a read that waits, or makes the next read of a local source fail.
    fileprivate func cancel() {
        if let local { local.value.cancelReads() } else { wake() }
    }

    /// Takes the claim for `holder`; `.busy` when another holds it.
    fileprivate func takeClaim(for holder: ObjectIdentifier) throws(VoiceNoteError) {
        try claim.withLock { (claim) throws(VoiceNoteError) in
            guard claim == nil || claim == holder else {
                throw VoiceNoteError(.busy, "a player or an uploader holds the source (until it loads or uploads another, or is destroyed)")
            }
            claim = holder
        }
    }

    /// Gives the claim back, if `holder` still holds it.
    fileprivate func dropClaim(of holder: ObjectIdentifier) {
        claim.withLock { if $0 == holder { $0 = nil } }
    }
}

/// What a player plays for a `vn_source`: the handle's source, claimed while this object lives (or until
/// `releaseClaim`), so the caller may destroy its handle at once and other calls on the handle fail with `.busy`.
///
/// Reads go through the handle's lock and start from this object's own offset (the source is seeked back there when
/// someone else moved it), so no other use of the same source can shift what the player reads. Read by the player's
/// thread only (`offset` is guarded by the handle's lock).
final class HeldSource: ByteSource, @unchecked Sendable {
    let handle: SourceHandle
    let name: String
    private var offset: Int64 = 0
    private let claimed = Locked(true)

    /// Claims `handle`; `.busy` when a player holds it already.
    init(claiming handle: SourceHandle) throws(VoiceNoteError) {
        self.handle = handle
        name = handle.name
        try handle.takeClaim(for: ObjectIdentifier(self))
    }

    deinit { releaseClaim() }

    /// Lets other calls use the handle again (the player left this location); reads still work meanwhile.
    func releaseClaim() {
        let held = claimed.withLock { (held) -> Bool in
            defer { held = false }
            return held
        }
        if held { handle.dropClaim(of: ObjectIdentifier(self)) }
    }

    var size: Int64? { (try? handle.withHeldSource { $0.size }) ?? nil }

    /// The handle's source's (a URL's: beside its media cache entry).
    var keptAnalysis: KeptAnalysis? { (try? handle.withHeldSource { $0.keptAnalysis }) ?? nil }

    /// Read and changed on the player's thread only.
    var position: Int64 { offset }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        try handle.withHeldSource { (source) throws(VoiceNoteError) -> Int in
            if source.position != offset { try source.seek(to: offset) }
            let count = try source.read(into: buffer)
            offset += Int64(count)
            return count
        }
    }

    func seek(to offset: Int64) throws(VoiceNoteError) {
        try handle.withHeldSource { (source) throws(VoiceNoteError) in
            try source.seek(to: offset)
            self.offset = offset
        }
    }

    func cancel() {
        handle.wake()
    }
}

/// A non-Sendable value moved under a lock that guards every use of it.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

@c @implementation public func vn_source_create_file(_ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let source = try FileSource(path: Location.localPath(of: utf8String(path, "path")))
        out.pointee = Handles.make(SourceHandle(source))
    }
}

@c @implementation public func vn_source_create_memory(_ data: UnsafeRawPointer?, _ size: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let bytes = try copyBytes(data, size)
        out.pointee = Handles.make(SourceHandle(MemorySource(bytes: bytes)))
    }
}

@c @implementation public func vn_source_create_callbacks(
    _ read: vn_source_read_fn?, _ seek: vn_source_seek_fn?, _ sizeBytes: Int64, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let read = try required(read, "read"), seek = try required(seek, "seek")
        let source = CallbackSource(
            name: "host source", size: sizeBytes >= 0 ? sizeBytes : nil,
            read: { buffer in Int(read(userData, buffer.baseAddress, buffer.count)) },
            seek: { offset in seek(userData, offset) >= 0 })
        let subscriber = CSubscriber(function: read, userData: userData, release: release)
        out.pointee = Handles.make(SourceHandle(source, release: subscriber.releaseClosure))
    }
}

@c @implementation public func vn_source_destroy(_ source: OpaquePointer?) {
    _ = Handles.remove(source, as: SourceHandle.self)
}

/// The `vn_source` an object (a player, an uploader) holds for what it plays or sends: the claim on the one held
/// before is given back when another takes its place, or when the object lets go (nil).
final class SourceHolder: Sendable {
    private let held = Locked<HeldSource?>(nil)

    /// The source held for `handle`, if it is the one held now.
    func heldSource(for handle: SourceHandle) -> HeldSource? {
        held.withLock { $0?.handle === handle ? $0 : nil }
    }

    /// Holds `source` (nil: none); the claim on the one before is given back.
    func hold(_ source: HeldSource?) {
        let previous = held.withLock { (held) -> HeldSource? in
            defer { held = source }
            return held
        }
        if previous !== source { previous?.releaseClaim() }
    }
}

@c @implementation public func vn_source_cancel(_ source: OpaquePointer?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try Handles.get(source, as: SourceHandle.self, "source").cancel()
    }
}
