#if canImport(Glibc)
import Glibc
#endif
import CDesktopBus
import VoiceNoteCore

/// One connection to the user's session bus through sd-bus (opened with dlopen on first use: libsystemd.so.0). Not
/// thread-safe, as sd-bus is not: its owner uses it on one thread only (`MPRISService`'s bus thread, or the thread of
/// one `OtherPlayers` round).
final class SessionBus {
    let connection: OpaquePointer

    /// Opens a connection ($DBUS_SESSION_BUS_ADDRESS, else the user's runtime directory).
    /// - Throws: `.unsupported` when sd-bus cannot be loaded; `.device` when there is no session bus.
    init() throws(VoiceNoteError) {
        var message: UnsafePointer<CChar>?
        guard vnbus_load(&message) == 0 else {
            throw VoiceNoteError(.unsupported, message.map { String(cString: $0) } ?? "sd-bus cannot be loaded")
        }
        var opened: OpaquePointer?
        let status = vnbus_open(&opened)
        guard status >= 0, let opened else {
            throw VoiceNoteError(.device, "no session bus: \(Self.describe(status))")
        }
        connection = opened
    }

    deinit { vnbus_close(connection) }

    /// The descriptor to poll and the events it waits for now.
    var descriptor: pollfd {
        var events: Int16 = 0
        let fd = vnbus_descriptor(connection, &events)
        return pollfd(fd: fd, events: events, revents: 0)
    }

    /// Milliseconds until sd-bus must run again; -1 for no deadline.
    var timeoutMilliseconds: Int32 { vnbus_timeout_ms(connection) }

    /// Handles what arrived (method calls run their hooks now).
    /// - Throws: `.device` when the connection is lost.
    func process() throws(VoiceNoteError) {
        let status = vnbus_process(connection)
        guard status >= 0 else { throw VoiceNoteError(.device, "the session bus connection was lost: \(Self.describe(status))") }
    }

    /// Takes the well-known `name`, never queued behind another owner.
    func requestName(_ name: String) throws(VoiceNoteError) {
        let status = vnbus_request_name(connection, name)
        guard status >= 0 else { throw VoiceNoteError(.busy, "the bus name \(name): \(Self.describe(status))") }
    }

    /// Gives `name` back (the connection stays open).
    func releaseName(_ name: String) {
        _ = vnbus_release_name(connection, name)
    }

    /// A negative errno as text.
    static func describe(_ status: Int32) -> String {
        String(cString: strerror(-status))
    }
}
