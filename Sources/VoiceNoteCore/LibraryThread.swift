#if canImport(Glibc)
import Glibc
#endif
import CShims

/// A plain pthread owned by the library. Not Dispatch: a Dispatch worker that calls into Python while the
/// interpreter exits traps in libdispatch's TSD cleanup.
public final class LibraryThread: Sendable {
    private let handle: pthread_t

    /// Starts a thread named `name` (at most 15 bytes are kept) that runs `body`.
    public init(name: String, _ body: @escaping @Sendable () -> Void) throws(VoiceNoteError) {
        final class Start: @unchecked Sendable {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
        }
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
            vnshim_set_thread_name(start.name)
            start.body()
            return nil
        }, start)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw VoiceNoteError(result == EAGAIN ? .noMemory : .internal, "pthread_create failed (errno \(result))")
        }
        handle = thread
    }

    /// Whether the calling thread is this one.
    public var isCurrent: Bool { pthread_equal(handle, pthread_self()) != 0 }

    /// Waits for the thread to end. Must not be called from the thread itself, and only once.
    public func join() {
        pthread_join(handle, nil)
    }

    /// Lets the thread end on its own, unwaited (instead of `join`; only once).
    public func detach() {
        pthread_detach(handle)
    }

    /// Waits for the thread to end, or, called from the thread itself (its owner was released there, by the
    /// thread's own last reference), lets it end on its own: a thread is joined or detached exactly once.
    public func joinOrDetach() {
        if isCurrent {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }
}
