import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport
@testable import VoiceNoteNetwork

/// `NetworkLoop.cancel` against the loop's own admission of a transfer: a cancel that lands after the loop took
/// the transfer off its queue and before it reaches libcurl must still stop it for good.
@Suite struct NetworkLoopCancelTests {
    @Test func aPostCancelledWhileTheLoopAdmitsItNeverReachesTheServer() throws {
        let root = try Fixtures.temporaryDirectory()
        let server = try HTTPTestServer(root: root)
        let racePath = "/channels/messaging/admit-race/file"
        let url = server.url(racePath)
        let loop = try NetworkLoop.shared()
        let body = HTTPRequestBody(.multipart(field: "file", fileName: "a.bin", contentType: "application/octet-stream"),
                                   source: MemorySource(bytes: [UInt8](repeating: 3, count: 100_000)))
        let post = HTTPPost(url: url, options: HTTPOptions(), body: body)
        let probed = Locked(false)
        loop.setAdmissionProbe { transfer in
            guard transfer.url == url else { return }
            probed.withLock { $0 = true }
            Thread { post.cancel() }.start()  // send() then cancels its transfer, which the loop holds right now
            _ = eventually(seconds: 5) { loop.isCancelRequested(transfer) }
        }
        defer { loop.setAdmissionProbe(nil) }
        let sent = Locked<[Int64]>([])
        let cancelled = Locked(false)
        #expect(throws: VoiceNoteError.self) {
            do throws(VoiceNoteError) {
                _ = try post.send { bytes in
                    if cancelled.withLock({ $0 }) { sent.withLock { $0.append(bytes) } }
                }
            } catch {
                cancelled.withLock { $0 = true }
                #expect(error.status == .cancelled)
                throw error
            }
        }
        #expect(probed.withLock { $0 })
        // Another POST through the same loop, after it: once the server has it, the raced one would be there too.
        let marker = HTTPPost(url: server.url("/channels/messaging/marker/file"), options: HTTPOptions(),
                              body: HTTPRequestBody(.multipart(field: "file", fileName: "m.bin", contentType: "application/octet-stream"),
                                                    source: MemorySource(bytes: [1, 2, 3])))
        _ = try marker.send { _ in }
        #expect(eventually(seconds: 10) { !server.requests(to: "/channels/messaging/marker/file").isEmpty })
        #expect(!server.isReceiving(racePath), "the cancelled POST's body reached the server")
        #expect(server.requests().allSatisfy { ($0["path"] as? String) != racePath })
        #expect(sent.withLock { $0 }.isEmpty, "the cancelled transfer reported progress after send returned")
    }
}
