import CVoiceNote
import Glibc
import VoiceNoteCore

/// A C event struct: its first field is its own size, and a zeroed one has every field empty.
protocol CEventStruct {
    init()
    var size: Int { get set }
}

extension vn_player_event: CEventStruct {}
extension vn_recorder_event: CEventStruct {}
extension vn_upload_event: CEventStruct {}
extension vn_test_event: CEventStruct {}
extension vn_flow_event: CEventStruct {}

/// A library event as a C event: the one conversion every object's subscribers go through (player, queue, recorder,
/// uploader, flow). `fill` sets the fields of a zeroed struct whose size is set; its strings and arrays are copied
/// into `memory`, which lives until the callback returns.
protocol CEventConvertible {
    associatedtype CEvent: CEventStruct
    func fill(_ cEvent: inout CEvent, _ memory: CEventMemory)
}

extension CEventConvertible {
    /// Builds the C event and calls `body` with it; its pointers live for the call only.
    func withCEvent(_ body: (UnsafePointer<CEvent>) -> Void) {
        let memory = CEventMemory()
        defer { memory.free() }
        var cEvent = CEvent()
        cEvent.size = MemoryLayout<CEvent>.size
        fill(&cEvent, memory)
        withUnsafePointer(to: &cEvent) { body($0) }
    }
}

/// The copies a C event's pointers point into, freed together after the callback.
final class CEventMemory {
    private var blocks: [UnsafeMutableRawPointer] = []

    /// A NUL-terminated copy of `text` (an empty string when out of memory: an event is never dropped for it).
    func string(_ text: String) -> UnsafePointer<CChar> {
        guard let copy = strdup(text) else { return UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self) }
        blocks.append(UnsafeMutableRawPointer(copy))
        return UnsafePointer(copy)
    }

    /// A copy of `values`, or NULL when there are none (or no memory: the count field must then say 0, which
    /// `fill` does by asking `values(_:count:)`).
    func values<T>(_ values: [T], count: inout Int) -> UnsafePointer<T>? {
        count = 0
        guard !values.isEmpty, let raw = malloc(MemoryLayout<T>.stride * values.count) else { return nil }
        blocks.append(raw)
        let typed = raw.bindMemory(to: T.self, capacity: values.count)
        typed.initialize(from: values, count: values.count)
        count = values.count
        return UnsafePointer(typed)
    }

    /// A failure's status and message.
    func failure(_ error: VoiceNoteError, status: inout Int32, message: inout UnsafePointer<CChar>?) {
        status = error.status.rawValue
        message = string(error.message)
    }

    func free() {
        for block in blocks { Glibc.free(block) }
        blocks = []
    }
}
