import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport

/// The URL source against a real HTTP server on 127.0.0.1 (Tests/Servers/http_server.py), each test asserting from
/// the server's log that the request it expects was made.
@Suite struct URLSourceTests {
    /// A served file and its bytes.
    static func served(_ kind: Fixtures.Kind) throws -> (name: String, bytes: [UInt8]) {
        let path = try Fixtures.path(kind)
        return (kind.rawValue, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func aWholeFileArrivesAsServed() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.opus)
        let source = try URLSource(url: server.url("/range/\(file.name)"))
        #expect(source.size == Int64(file.bytes.count))
        #expect(try source.readAll() == file.bytes)
        #expect(source.isComplete)
        #expect(source.arrivedFraction == 1)
        #expect(eventually(seconds: 10) { server.requests(to: "/range/\(file.name)").count == 1 })
        let requests = server.requests(to: "/range/\(file.name)")
        #expect(requests.first?["range"] is NSNull)
        #expect((requests.first?["headers"] as? [String: String])?["user-agent"]?.hasPrefix("voicenote/") == true)
    }

    @Test func aSeekFarAheadAsksForARangeAndTheHolesAreFilledAfterwards() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.wav)
        #expect(file.bytes.count > 500_000)
        // 100 kB/s: the first transfer is far from the end when the read there asks for a range.
        let source = try URLSource(url: server.url("/throttle/100000/\(file.name)"))
        #expect(source.size == Int64(file.bytes.count))
        let offset = file.bytes.count - 100_000
        try source.seek(to: Int64(offset))
        #expect(try source.readAll() == Array(file.bytes[offset...]))
        // Logged once the response ends: the range runs to the end of the file, so it ends with the read.
        #expect(eventually(seconds: 30) { server.requests().contains { ($0["range"] as? String) == "bytes=\(offset)-" } },
                "no Range request from \(offset): \(server.requests())")
        // The start is still there to read, and the rest of the file arrives without being asked for.
        try source.seek(to: 0)
        #expect(try source.readAll() == file.bytes)
        #expect(eventually(seconds: 30) { source.isComplete })
    }

    @Test func aServerWithoutRangesIsReadInOnePass() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.wav)
        let source = try URLSource(url: server.url("/norange/\(file.name)"))
        try source.seek(to: Int64(file.bytes.count - 1000))
        #expect(try source.readAll() == Array(file.bytes.suffix(1000)))
        try source.seek(to: 10)
        #expect(try source.readAll() == Array(file.bytes.dropFirst(10)))
        #expect(eventually(seconds: 10) { server.requests(to: "/norange/\(file.name)").count == 1 })
    }

    @Test func aBodyWithoutALengthEndsWhereTheServerEndsIt() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.opus)
        let source = try URLSource(url: server.url("/chunked/\(file.name)"))
        #expect(try source.readAll() == file.bytes)
        #expect(source.size == Int64(file.bytes.count))
    }

    @Test(arguments: [(401, Status.permission), (403, .permission), (404, .notFound), (410, .notFound),
                      (413, .tooLarge), (418, .network), (500, .network), (503, .network)])
    func httpErrorsMapToStatusesAndNameTheCode(code: Int, status: Status) throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let source = try URLSource(url: server.url("/status/\(code)?signature=secret"))
        #expect(source.size == nil)
        do {
            _ = try source.readAll()
            Issue.record("HTTP \(code) was read as data")
        } catch let error as VoiceNoteError {
            #expect(error.status == status)
            #expect(error.message.contains("HTTP \(code)"))
            #expect(!error.message.contains("secret"), "the query leaked into \(error.message)")
        }
        // The server logs a request once its response has ended: after the client saw it.
        #expect(eventually(seconds: 10) { server.requests(to: "/status/\(code)?signature=secret").count == 1 })
    }

    @Test func redirectsAreFollowed() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.opus)
        let source = try URLSource(url: server.url("/redirect/3/range/\(file.name)"))
        #expect(try source.readAll() == file.bytes)
        #expect(eventually(seconds: 10) { server.requests(to: "/redirect/1/range/\(file.name)").first?["status"] as? Int == 302 })
        #expect(eventually(seconds: 10) { server.requests(to: "/range/\(file.name)").count == 1 })
    }

    @Test func anAuthorizationHeaderReachesTheServer() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.opus)
        var options = HTTPOptions()
        try options.addHeader(line: "Authorization: Bearer s3cret")
        let source = try URLSource(url: server.url("/auth/s3cret/range/\(file.name)"), options: options)
        #expect(try source.readAll() == file.bytes)
        #expect(eventually(seconds: 10) { !server.requests(to: "/auth/s3cret/range/\(file.name)").isEmpty })
        let request = server.requests(to: "/auth/s3cret/range/\(file.name)").first
        #expect((request?["headers"] as? [String: String])?["authorization"] == "Bearer s3cret")

        let refused = try URLSource(url: server.url("/auth/s3cret/range/\(file.name)"))
        #expect(throws: VoiceNoteError.self) { _ = try refused.readAll() }
        #expect(eventually(seconds: 10) { server.requests(to: "/auth/s3cret/range/\(file.name)").last?["status"] as? Int == 401 })
    }

    @Test func aDroppedConnectionKeepsWhatArrivedAndFailsBeyond() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.wav)
        let source = try URLSource(url: server.url("/drop/\(file.name)"))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var failure: VoiceNoteError?
        while failure == nil {
            do {
                let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if count == 0 { break }
                bytes += buffer[0..<count]
            } catch {
                failure = error as? VoiceNoteError ?? VoiceNoteError(.internal, "\(error)")
            }
        }
        #expect(failure?.status == .network)
        #expect(bytes.count >= file.bytes.count / 2 - 4096 && bytes.count < file.bytes.count)
        #expect(bytes == Array(file.bytes.prefix(bytes.count)))
    }

    /// `source.readAll()` on a thread of its own; its result is the error that ended the read (nil: none).
    static func readAll(_ source: URLSource) throws -> Background<VoiceNoteError?> {
        try Background {
            do {
                _ = try source.readAll()
                return nil
            } catch let error as VoiceNoteError {
                return error
            } catch {
                return VoiceNoteError(.internal, "\(error)")
            }
        }
    }

    @Test func aStalledServerFailsAfterTheStallTimeoutAndCloseReturnsAtOnce() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.wav)
        // The stall timeout runs on a manual clock: the 1000 bytes arrive, then it is over only once advanced past.
        let clock = ManualClock()
        var options = HTTPOptions()
        try options.setStallTimeout(0.5)
        options.clock = clock
        let stalled = try URLSource(url: server.url("/stall/1000/\(file.name)"), options: options)
        let stalledRead = try Self.readAll(stalled)
        #expect(eventually(seconds: 10) { stalled.arrivedFraction * Double(file.bytes.count) >= 999.5 })
        try clock.advance(0.5)
        try clock.advance(0.001)
        #expect(stalledRead.result(within: 10) == VoiceNoteError(.network, "GET \(server.url("/stall/1000/\(file.name)")): no data for 0.5 s (stalled)"))

        // Closed from another thread while a read waits on a stall: the read ends, close returns promptly.
        let waiting = try URLSource(url: server.url("/stall/1000/\(file.name)"))
        let read = try Self.readAll(waiting)
        #expect(waiting.size == Int64(file.bytes.count))
        #expect(eventually(seconds: 10) { waiting.arrivedFraction > 0 })
        let started = ContinuousClock.now
        waiting.close()
        #expect(ContinuousClock.now - started < .milliseconds(200))
        #expect(read.result(within: 5)??.status == .cancelled)
    }

    @Test func cancelWakesAWaitingReadAndLaterReadsGoOn() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.wav)
        let source = try URLSource(url: server.url("/slow/1.5/\(file.name)"))
        let outcome = Locked<VoiceNoteError?>(nil)
        let reader = Thread {
            var byte: UInt8 = 0
            do {
                _ = try withUnsafeMutableBytes(of: &byte) { try source.read(into: $0) }
            } catch let error as VoiceNoteError {
                outcome.withLock { $0 = error }
            } catch {}
        }
        reader.start()
        source.cancel()  // the response comes after 1.5 s: the read waits for it, or has not begun (then it is the next)
        #expect(eventually(seconds: 1) { outcome.withLock { $0 }?.status == .cancelled })
        #expect(try source.readAll() == file.bytes)
    }

    @Test func aRefusedConnectionIsANetworkFailure() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        let url = server.url("/range/speech.ogg")
        server.stop()
        let source = try URLSource(url: url)
        do {
            _ = try source.readAll()
            Issue.record("a refused connection was read as data")
        } catch let error as VoiceNoteError {
            #expect(error.status == .network)
        }
    }

    @Test func decodersReadAURLAsAFile() throws {
        let server = try HTTPTestServer(root: Fixtures.directory)
        for kind in [Fixtures.Kind.opus, .mp3] {
            let local = try Decoders.info(of: FileSource(path: Fixtures.path(kind)))
            let remote = try Decoders.info(of: URLSource(url: server.url("/range/\(kind.rawValue)")))
            #expect(remote == local)
        }
    }

    @Test(arguments: ["ftp://example.com/a.ogg", "http://", "https:///a.ogg", "file:///a.ogg", "http://a b/c", ""])
    func onlyHTTPURLsWithAHostAreTaken(url: String) {
        #expect(throws: VoiceNoteError.self) { _ = try URLSource(url: url) }
        #expect(throws: VoiceNoteError.self) { _ = try Location(url: url) }
    }

    @Test func headerAndTimeoutOptionsAreChecked() throws {
        var options = HTTPOptions()
        #expect(throws: VoiceNoteError.self) { try options.addHeader(name: "Bad Name", value: "x") }
        #expect(throws: VoiceNoteError.self) { try options.addHeader(name: "X", value: "a\r\nInjected: 1") }
        #expect(throws: VoiceNoteError.self) { try options.addHeader(line: "no colon") }
        #expect(throws: VoiceNoteError.self) { try options.setStallTimeout(.nan) }
        #expect(throws: VoiceNoteError.self) { try options.setConnectTimeout(0) }
        #expect(throws: VoiceNoteError.self) { try options.setCAFile("/nonexistent/ca.pem") }
        try options.addHeader(line: "X-Test:  value ")
        #expect(options.headers == ["X-Test: value "])
        for seconds in [0.5, .nan, .infinity, 86_401] {
            #expect(throws: VoiceNoteError.self) { try options.setTransferTimeout(seconds) }
        }
        for bytes in [0, -1, (1 << 40) + 1, .max] as [Int64] {
            #expect(throws: VoiceNoteError.self) { try options.setMaximumBytes(bytes) }
        }
        try options.setTransferTimeout(1)
        try options.setMaximumBytes(1 << 40)
        #expect(options.transferTimeout == 1 && options.maximumBytes == 1 << 40)
    }

    /// Reads until the end or a failure: the bytes read, and the failure.
    static func readUntilFailure(_ source: URLSource) -> ([UInt8], VoiceNoteError?) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            do {
                let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if count == 0 { return (bytes, nil) }
                bytes += buffer[0..<count]
            } catch {
                return (bytes, error as? VoiceNoteError ?? VoiceNoteError(.internal, "\(error)"))
            }
        }
    }

    @Test func aResourceThatChangesBetweenAnswersIsNeverStitched() throws {
        // The first answer (version 1) is cut half-way; reading on asks for the rest with If-Range naming
        // version 1, which the server, now at version 2, answers with the whole new version: a failure, never a
        // file made of two versions.
        let server = try HTTPTestServer(root: Fixtures.directory)
        let file = try Self.served(.wav)
        let source = try URLSource(url: server.url("/flipping/\(file.name)"))
        let (first, dropped) = Self.readUntilFailure(source)
        #expect(dropped?.status == .network)
        #expect(first == Array(file.bytes.prefix(first.count)))
        let (rest, changed) = Self.readUntilFailure(source)
        #expect(rest.isEmpty)
        #expect(changed?.status == .network)
        #expect(changed?.message.contains("changed during the download") == true, "\(String(describing: changed))")
        #expect(eventually(seconds: 10) { server.requests(to: "/flipping/\(file.name)").count == 2 })
        let second = server.requests(to: "/flipping/\(file.name)").last
        #expect((second?["headers"] as? [String: String])?["if-range"] == "\"v1\"")
        #expect(source.arrivedFraction == 0)  // what arrived belonged to the old version: dropped
    }
}
