#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteOutbox

/// `voicenote outbox …`: the durable outbox from the command line — send it (a host that hands each uploaded
/// payload to a message log exactly once), list it, add to it, retry, cancel and acknowledge items.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox", abstract: "Keep notes in a durable outbox and send them (docs/outbox.md).",
        subcommands: [OutboxSend.self, OutboxList.self, OutboxAdd.self, OutboxRetry.self, OutboxCancel.self, OutboxAcknowledge.self])

    /// The endpoint the management subcommands open the outbox with: they never start it, so nothing is sent there.
    static let idleEndpoint = "http://localhost/"
}

/// The outbox's directory, the one argument every subcommand takes first.
struct OutboxDirectory: ParsableArguments {
    @Argument(help: ArgumentHelp("The outbox's directory (created, mode 0700, when missing).", valueName: "dir"))
    var directory: String

    /// The outbox, opened for management (never started).
    func open() throws -> Outbox { try Outbox(directory: directory, endpoint: OutboxCommand.idleEndpoint) }
}

struct OutboxList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the items as a JSON array.")
    @OptionGroup var outbox: OutboxDirectory
    @Flag(help: "Print on one line instead of indented.") var compact = false

    func run() throws {
        let opened = try outbox.open()
        defer { opened.close() }
        print(OutboxItem.json(try opened.items(), indent: compact ? 0 : 2))
    }
}

struct OutboxAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add notes (copied) for a destination; print each one's id.",
        discussion: "Each note is sent only by an `outbox send` to the same endpoint and mode.")
    @OptionGroup var outbox: OutboxDirectory
    @Argument(help: ArgumentHelp("The notes.", valueName: "file")) var files: [String]
    @Option(help: ArgumentHelp("The http(s) URL the notes go to (with --matrix, the homeserver's base URL).", valueName: "url"))
    var endpoint: String
    @OptionGroup var sending: UploadArguments

    func run() throws {
        let opened = try Outbox(directory: outbox.directory, endpoint: endpoint, upload: try sending.options())
        defer { opened.close() }
        for file in files { print("{\"added\":\(try opened.add(path: file))}") }
    }
}

/// An item's id, for retry, cancel and ack.
struct OutboxItemArgument: ParsableArguments {
    @OptionGroup var outbox: OutboxDirectory
    @Argument(help: "The item's id.") var id: Int64
}

struct OutboxRetry: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: "Send a failed or waiting item again at the next send.")
    @OptionGroup var item: OutboxItemArgument
    func run() throws {
        let opened = try item.outbox.open()
        defer { opened.close() }
        try opened.retry(item.id)
    }
}

struct OutboxCancel: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Remove an item whatever its state.")
    @OptionGroup var item: OutboxItemArgument
    func run() throws {
        let opened = try item.outbox.open()
        defer { opened.close() }
        try opened.cancel(item.id)
    }
}

struct OutboxAcknowledge: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ack", abstract: "Acknowledge an uploaded item (its message was sent).")
    @OptionGroup var item: OutboxItemArgument
    func run() throws {
        let opened = try item.outbox.open()
        defer { opened.close() }
        try opened.acknowledge(item.id)
    }
}
