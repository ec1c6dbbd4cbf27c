#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteOutbox

/// `voicenote outbox send DIR --endpoint URL`: a host of the outbox. Adds the files given, starts, and for each
/// uploaded item "sends its message" — a JSON line `{"id": …, "payload": …}` on standard output and, with
/// `--messages FILE`, appended to that file and synced unless a line of that id is there already — then
/// acknowledges it. Killed at any moment and run again, every note ends in the message file exactly once. Exits
/// when nothing is left to send (0; 3 when items stayed failed), or with `--watch` at SIGINT/SIGTERM.
struct OutboxSend: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send the outbox; print each uploaded payload once (JSON lines) and acknowledge it.")

    @OptionGroup var outbox: OutboxDirectory

    @Argument(help: ArgumentHelp("Notes to add first.", valueName: "file"))
    var files: [String] = []

    @Option(help: ArgumentHelp("The http(s) URL to upload to (with --matrix, the homeserver's base URL).", valueName: "url"))
    var endpoint: String

    @OptionGroup var sending: UploadArguments

    @Option(help: ArgumentHelp("The message log: one JSON line per uploaded note, each id once, synced.", valueName: "file"))
    var messages: String?

    @Option(help: "The first back-off after a transient failure, in seconds (0.01 … 3600).")
    var retryBase = 1.0

    @Option(help: "The longest back-off, in seconds.")
    var retryCap = 300.0

    @Flag(help: "Keep running (and sending what others add) until SIGINT or SIGTERM.")
    var watch = false

    func run() throws {
        var retry = OutboxOptions()
        try retry.setRetry(base: retryBase, cap: retryCap)
        let log = try messages.map { path in try MessageLog(path: path) }
        let opened = try Outbox(directory: outbox.directory, endpoint: endpoint, upload: try sending.options(), options: retry)
        defer { opened.close() }
        let changed = Monitor()
        let handed = Locked<[(Int64, VoiceRecordingPayload)]>([])
        _ = try opened.events.subscribe({ event in
            switch event {
            case .uploaded(let id, let payload): handed.withLock { $0.append((id, payload)) }
            case .waiting(let id, let error, let delay):
                Terminal.writeError("voicenote: item \(id): \(error) (again in \(Int((delay * 1000).rounded())) ms)\n")
            case .failed(let id, let error): Terminal.writeError("voicenote: item \(id) failed: \(error)\n")
            default: break
            }
            changed.locked { changed.broadcast() }
        }, release: nil)
        for file in files { _ = try opened.add(path: file) }
        let stop = watch ? try SignalPipe(signals: [SIGINT, SIGTERM]) : nil
        try opened.start()
        while true {
            for (id, payload) in handed.withLock({ (list: inout [(Int64, VoiceRecordingPayload)]) in defer { list = [] }; return list }) {
                if try log?.record(id: id, payload: payload) ?? true {
                    print("{\"id\":\(id),\"payload\":\(payload.json())}")
                    fflush(nil)
                }
                try opened.acknowledge(id)
            }
            let items = try opened.items()
            if !watch, items.allSatisfy({ $0.state == .failed }) {
                if !items.isEmpty { throw ExitCode(3) }
                return
            }
            if stop?.received().isEmpty == false { return }
            changed.locked { _ = changed.wait(untilMonotonicNanoseconds: monotonicNanoseconds() + 500_000_000) }
        }
    }
}

/// The host's message log of `outbox send`: one JSON line per note sent, each item id at most once, synced before
/// the item is acknowledged (a crash between the two leaves the line, and the next run does not add it again).
final class MessageLog {
    private let path: String
    private var sent: Set<Int64>

    init(path: String) throws {
        self.path = path
        sent = []
        guard let bytes = try FileSystem.contents(of: path, atMost: 64 << 20) else { return }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            // A line cut by a crash (no newline, not JSON) is left out; its id is sent again.
            if let document = try? JSONDocument(parsing: String(line), limits: .payload, what: "a message line"),
               case .integer(let id)? = document.top["id"]?.value {
                sent.insert(id)
            }
        }
    }

    /// Appends the message of item `id` unless it is there; true when appended.
    func record(id: Int64, payload: VoiceRecordingPayload) throws -> Bool {
        guard !sent.contains(id) else { return false }
        let line = Array("{\"id\":\(id),\"payload\":\(payload.json())}\n".utf8)
        let file = try FileDescriptor(opening: path, flags: O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        try line.withUnsafeBytes { try file.write($0) }
        try file.sync()
        try file.close()
        sent.insert(id)
        return true
    }
}
