#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import VoiceNoteCore

@Suite struct ErrorTests {
    @Test func statusNumbersAreStable() {
        #expect(Status.allCases.map(\.rawValue) == Array((-15...0).reversed()))
        #expect(Status.format.name.description == "VN_E_FORMAT")
        #expect(Set(Status.allCases.map { $0.name.description }).count == Status.allCases.count)
    }

    @Test(arguments: [
        (ENOENT, Status.notFound), (EACCES, .permission), (ENOSPC, .noSpace), (EFBIG, .noSpace),
        (EISDIR, .invalidArgument), (EIO, .io),
    ])
    func errnoMapsToStatus(code: Int32, status: Status) {
        let error = VoiceNoteError.fromErrno(code, "open /x")
        #expect(error.status == status)
        #expect(error.message.hasPrefix("open /x: "))
        #expect(error.message.hasSuffix("(errno \(code))"))
    }
}

@Suite(.serialized) struct LogTests {
    @Test func quietByDefaultThenDeliversAtOrAboveLevel() throws {
        let lines = Locked<[String]>([])
        #expect(!Log.isEnabled(.error))
        try Log.setHandler({ level, message in lines.withLock { $0.append("\(level.rawValue) \(message)") } }, maxLevel: .info)
        Log.write(.debug, "hidden")
        Log.write(.info, "shown")
        Log.write(.error, "also shown")
        try Log.setHandler(nil, maxLevel: .warning)
        Log.write(.error, "after reset")
        #expect(lines.withLock { $0 } == ["3 shown", "1 also shown"])
    }

    @Test func settingTheHandlerInsideTheHandlerIsMisuse() throws {
        let status = Atomic<Int32>(0)
        try Log.setHandler({ _, _ in
            do throws(VoiceNoteError) { try Log.setHandler(nil, maxLevel: .error) } catch { status.store(error.status.rawValue, ordering: .relaxed) }
        }, maxLevel: .debug)
        Log.write(.info, "x")
        try Log.setHandler(nil, maxLevel: .error)
        #expect(status.load(ordering: .relaxed) == Status.misuse.rawValue)
    }
}
