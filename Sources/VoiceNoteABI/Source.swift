import CVoiceNote
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// The object behind a `vn_source *`: a byte source used by one call at a time (the mutex enforces it), and the
/// host's release function for callback sources.
final class SourceHandle: Sendable {
    private let source: Locked<UnsafeTransfer<any ByteSource>>
    private let release: (@Sendable () -> Void)?

    init(_ source: any ByteSource, release: (@Sendable () -> Void)? = nil) {
        self.source = Locked(UnsafeTransfer(source))
        self.release = release
    }

    deinit { release?() }

    /// Runs `body` with the source, excluding other calls on it.
    func with<T>(_ body: (any ByteSource) throws(VoiceNoteError) -> T) throws(VoiceNoteError) -> T {
        try source.withLock { (transfer) throws(VoiceNoteError) -> T in try body(transfer.value) }
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
        let source = try FileSource(path: utf8String(path, "path"))
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
