import VoiceNoteCore
import VoiceNoteSources

/// An `http://` or `https://` resource as a `ByteSource`: the player, the waveform and info read it like a file.
///
/// The download starts when the source is made and runs on the process's network thread (`NetworkLoop`) into an
/// unnamed file; reads take what has arrived and wait (cancellably) for what has not, so decoding starts before
/// the download ends. A read far from what the running transfer is about to deliver (more than 256 KiB ahead, or
/// behind it) asks for a byte range from there instead, when the server takes ranges (a 206 answer, or
/// `Accept-Ranges: bytes`); a new range request replaces a pending one. A server that ignores ranges is read in one
/// pass: a seek beyond it waits for the download to get there. Once the range asked for has arrived, the holes left
/// are fetched too, so the whole file is there in the end.
///
/// `size` waits for the response headers (the decoders need it to open). Failures arrive with the statuses of
/// `NetworkFailure`, with the HTTP status in the message; a dropped connection fails the reads beyond what arrived.
/// `cancel()` makes a waiting read (or the next one) throw `.cancelled` at once; later reads go on.
public final class URLSource: ArrivingSource, @unchecked Sendable {
    /// Within this many bytes ahead of the running transfer, a read waits for it instead of asking for a range.
    static let lookahead: Int64 = 256 * 1024

    /// The URL as given.
    public let url: String
    /// The URL without query, fragment or credentials: what messages show.
    public let name: String
    /// The offset of the next read (the reading thread's).
    public private(set) var position: Int64 = 0
    /// Where the analysis of this media is kept: beside its media cache entry (`RemoteMedia` sets it before the
    /// source is handed out; read-only after).
    public var keptAnalysis: KeptAnalysis?

    private let options: HTTPOptions
    private let loop: NetworkLoop
    private let file: DownloadFile
    private let monitor = Monitor()
    // Under `monitor`:
    private var arrived = ByteRanges()
    private var total: Int64?
    private var responded = false
    private var rangesSupported: Bool?
    private var transfer: HTTPTransfer?
    /// Numbers transfers: only the latest (`transfer`) steers the download.
    private var transferSerial = 0
    /// The next offset the running transfer delivers, and the end of what it asked for (exclusive; nil: the end).
    private var transferNext: Int64 = 0
    private var transferEnd: Int64?
    /// The body of a response without a length has ended: its end is the resource's.
    private var ended = false
    /// The first response's `If-Range` validator (strong ETag or Last-Modified): sent with every range request,
    /// so a resource that changed is never stitched from two versions.
    private var validator: String?
    private var failure: VoiceNoteError?
    private var interrupted = false
    private var closed = false
    /// Called once, on the network thread, when the last byte has arrived (the cache keeps the file then).
    private let whenComplete: (@Sendable (URLSource) -> Void)?
    private var completionReported = false

    /// Starts downloading `url`.
    /// - Throws: `.invalidArgument` for anything but an http(s) URL with a host; `.unsupported` when libcurl
    ///   cannot be loaded; `.io`/`.noSpace` when the download file cannot be made.
    /// `whenComplete` runs once, on the network thread, when every byte has arrived.
    public init(url: String, options: HTTPOptions = HTTPOptions(),
                whenComplete: (@Sendable (URLSource) -> Void)? = nil) throws(VoiceNoteError) {
        _ = try Location(url: url)
        self.url = url
        name = Location.redacted(url)
        self.options = options
        self.whenComplete = whenComplete
        loop = try NetworkLoop.shared()
        file = try DownloadFile()
        monitor.locked { startTransfer(at: 0) }
    }

    deinit { close() }

    /// Stops the download; reads after this throw `.cancelled`. Idempotent.
    public func close() {
        let running = monitor.locked { () -> HTTPTransfer? in
            closed = true
            defer { transfer = nil }
            monitor.broadcast()
            return transfer
        }
        if let running { loop.cancel(running) }
    }

    /// The total size, once the response says it (waits for the response headers; nil when it gives no length
    /// or failed: the reads then say why).
    public var size: Int64? {
        monitor.locked {
            waitForResponse()
            return total
        }
    }

    /// The share of the resource that has arrived, 0…1 (0 while the size is unknown, 1 once complete).
    public var arrivedFraction: Double {
        monitor.locked {
            guard let total, total > 0 else { return ended ? 1 : 0 }
            return min(1, Double(arrived.count) / Double(total))
        }
    }

    /// Whether every byte has arrived.
    public var isComplete: Bool {
        monitor.locked { isWhole(arrived) }
    }

    /// Under `monitor`: whether `ranges` hold every byte of a known size (or a body without a length has ended).
    private func isWhole(_ ranges: ByteRanges) -> Bool {
        total.map { ranges.firstMissing(below: $0) == nil } ?? ended
    }

    /// Bytes from offset 0 that have arrived without a gap.
    public var contiguousBytes: Int64 {
        monitor.locked { arrived.end(ofRunHolding: 0) ?? 0 }
    }

    /// Whether the server takes ranges (waits for the response headers; false when the request failed).
    public var seeksByRange: Bool {
        monitor.locked {
            waitForResponse()
            return rangesSupported == true
        }
    }

    /// Under `monitor`: waits until the response headers came, or no transfer is on its way (it failed), or the
    /// source is closed or interrupted.
    private func waitForResponse() {
        while !responded && transfer != nil && !closed && !interrupted { monitor.wait() }
    }

    /// Makes a waiting read (or the next one) throw `.cancelled` at once.
    public func cancel() {
        monitor.locked {
            interrupted = true
            monitor.broadcast()
        }
    }

    public func seek(to offset: Int64) throws(VoiceNoteError) {
        guard offset >= 0 else { throw VoiceNoteError(.invalidArgument, "seek to \(offset) in \(name)") }
        position = offset
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        var replaced: HTTPTransfer?
        let result = monitor.locked { () -> Result<Int64, VoiceNoteError> in
            while true {
                if closed || interrupted {
                    interrupted = false
                    return .failure(VoiceNoteError(.cancelled, "reading \(name) was cancelled"))
                }
                if let end = arrived.end(ofRunHolding: position) { return .success(end - position) }
                if let total, position >= total { return .success(0) }
                if ended, position >= arrived.ranges.last?.upperBound ?? 0 { return .success(0) }
                if transfer == nil, let failure {
                    self.failure = nil  // reported once: a later read (play again, a retry) asks anew
                    return .failure(failure)
                }
                if replaced == nil { replaced = request(position) }
                monitor.wait()
            }
        }
        if let replaced { loop.cancel(replaced) }
        let available: Int64
        switch result {
        case .success(let count): available = count
        case .failure(let error): throw error
        }
        guard available > 0 else { return 0 }
        let count = try file.read(at: position, into: UnsafeMutableRawBufferPointer(
            rebasing: buffer.prefix(Int(min(available, Int64(buffer.count))))))
        position += Int64(count)
        return count
    }

    /// Runs `whenComplete` the first time every byte has arrived, counting `adding` (written to the file, not yet
    /// in `arrived`). Not under `monitor`.
    private func reportCompletion(adding range: Range<Int64> = 0..<0) {
        let completed = monitor.locked { () -> Bool in
            var all = arrived
            all.insert(range)
            guard !completionReported, isWhole(all) else { return false }
            completionReported = true
            return true
        }
        if completed { whenComplete?(self) }
    }

    /// Copies the whole download, once complete, into `target` from offset `start` on (the cache's copy).
    func copyDownload(into target: FileDescriptor, at start: Int64) throws(VoiceNoteError) {
        guard let total = monitor.locked({ total }) else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < total {
            let count = try file.read(at: offset, into: UnsafeMutableRawBufferPointer(
                rebasing: buffer.prefix(Int(min(Int64(buffer.count), total - offset)))))
            guard count > 0 else { throw VoiceNoteError(.io, "the download of \(name) ended early") }
            do throws(Errno) {
                try target.write(at: start + offset, UnsafeRawBufferPointer(rebasing: buffer.prefix(count)))
            } catch {
                throw VoiceNoteError.fromErrno(error.code, "write the cache")
            }
            offset += Int64(count)
        }
    }

    /// Under `monitor`: makes sure a transfer is on its way to `offset`. Returns a transfer that was replaced (to
    /// cancel once the monitor is released).
    private func request(_ offset: Int64) -> HTTPTransfer? {
        if let running = transfer {
            let close = offset >= transferNext && offset - transferNext <= Self.lookahead
                && (transferEnd.map { offset < $0 } ?? true)
            guard !close, rangesSupported == true else { return nil }  // on its way, or the only way
            startTransfer(at: offset)
            return running
        }
        if failure == nil { startTransfer(at: offset) }  // a first request, a range, or again after a failure
        return nil
    }

    /// Under `monitor`: a transfer from `offset` to the next byte that has arrived (or the end).
    private func startTransfer(at offset: Int64) {
        let next = arrived.start(ofRunAfter: offset)
        transferSerial += 1
        var requestOptions = options
        if offset > 0, let validator { requestOptions.headers.append("If-Range: \(validator)") }
        let made = HTTPTransfer(url: url, options: requestOptions, first: offset, last: next.map { $0 - 1 },
                                handlers: handlers(from: offset, through: next.map { $0 - 1 }, serial: transferSerial))
        transfer = made
        transferNext = offset
        transferEnd = next
        failure = nil
        loop.start(made)
    }

    /// The handlers of a transfer from `offset`; a transfer that was replaced keeps writing what it gets (those
    /// are still the resource's bytes) but no longer steers the download.
    private func handlers(from offset: Int64, through last: Int64?, serial: Int) -> HTTPTransfer.Handlers {
        final class Cursor: @unchecked Sendable {
            var next: Int64 = 0
            /// The end (exclusive) a 206's Content-Range announced.
            var announcedEnd: Int64?
        }
        let cursor = Cursor()
        cursor.next = offset
        return HTTPTransfer.Handlers(
            response: { [weak self] response in
                guard let self else { return VoiceNoteError(.cancelled, "the source was released") }
                return monitor.locked {
                    accept(response, from: offset, through: last, serial: serial, cursor: &cursor.next, announcedEnd: &cursor.announcedEnd)
                }
            },
            body: { [weak self] bytes in
                guard let self else { return VoiceNoteError(.cancelled, "the source was released") }
                let start = cursor.next
                let end = start + Int64(bytes.count)
                if let announced = cursor.announcedEnd, end > announced {
                    return VoiceNoteError(.network, "GET \(name): more bytes than its Content-Range announced")
                }
                if end > options.maximumBytes { return monitor.locked { tooLarge(end, announced: false) } }
                do throws(VoiceNoteError) {
                    try file.write(bytes, at: start)
                } catch {
                    return error
                }
                cursor.next += Int64(bytes.count)
                // The last bytes are kept (the cache) before a reader can see them: a reader that has read the
                // whole resource finds it kept, and may release the source before the transfer ends.
                reportCompletion(adding: start..<cursor.next)
                monitor.locked {
                    arrived.insert(start..<cursor.next)
                    if serial == transferSerial { transferNext = cursor.next }
                    monitor.broadcast()
                }
                return nil
            },
            finished: { [weak self] outcome in
                guard let self else { return }
                monitor.locked {
                    finish(outcome, serial: serial, from: offset, reachedEnd: cursor.next, announcedEnd: cursor.announcedEnd)
                }
                reportCompletion()  // a body without a length is complete when it ends
            })
    }

    /// Under `monitor`: takes a transfer's response; an error aborts it.
    private func accept(
        _ response: HTTPResponse, from offset: Int64, through last: Int64?, serial: Int, cursor: inout Int64,
        announcedEnd: inout Int64?
    ) -> VoiceNoteError? {
        var size: Int64?
        if let known = validator, let now = response.validator, now != known {
            return changed("its validator went from \(known) to \(now)")
        }
        switch response.code {
        case 206:
            let asked = "bytes=\(offset)-" + (last.map { String($0) } ?? "")
            guard let range = response.contentRange, range.first == offset, last.map({ range.last <= $0 }) ?? true,
                  response.contentLength.map({ $0 == range.last - range.first + 1 }) ?? true else {
                let given = response.headers["content-range"] ?? "no Content-Range"
                return VoiceNoteError(.network, "GET \(name): HTTP 206 with \(given) does not answer \(asked)")
            }
            size = range.total
            announcedEnd = range.last + 1
            rangesSupported = true
        case 200:
            if offset > 0, validator != nil, rangesSupported == true {
                return changed("it answered a range sent with If-Range with the whole resource")
            }
            if offset > 0 {
                rangesSupported = false  // the whole resource again, from its first byte
                cursor = 0
                if serial == transferSerial {
                    transferNext = 0
                    transferEnd = nil
                }
            } else if rangesSupported == nil {
                rangesSupported = response.acceptsRanges
            }
            size = response.contentLength
        default:
            return VoiceNoteError(.network, "GET \(name): unexpected HTTP \(response.code)")
        }
        if let size, let total, size != total { return changed("\(total) → \(size) bytes") }
        if let size, size > options.maximumBytes { return tooLarge(size, announced: true) }
        if let size { total = size }
        if offset == 0 && validator == nil { validator = response.validator }
        responded = true
        monitor.broadcast()
        return nil
    }

    /// Under `monitor`: the failure for a resource that changed between two answers; what arrived is dropped
    /// (it may belong to the old version) and its storage released.
    private func changed(_ how: String) -> VoiceNoteError {
        release()
        return VoiceNoteError(.network, "GET \(name): the resource changed during the download (\(how))")
    }

    /// Under `monitor`: the failure for a resource over `options.maximumBytes` (`announced` by the server, or
    /// found while its body arrived); its storage is released at once.
    private func tooLarge(_ bytes: Int64, announced: Bool) -> VoiceNoteError {
        release()
        let what = announced ? "\(bytes) bytes" : "a body that grew past \(bytes - 1) bytes"
        return VoiceNoteError(.tooLarge, "GET \(name): \(what), over the download limit of \(options.maximumBytes)")
    }

    /// Under `monitor`: forgets every byte that arrived and gives their disk space back.
    private func release() {
        arrived = ByteRanges()
        file.release()
    }

    /// Under `monitor`: a transfer ended; the download goes on with the first hole when it was the steering one
    /// and brought bytes (an answer without the bytes it announced, or with none, is a failure, never a loop).
    private func finish(_ outcome: VoiceNoteError?, serial: Int, from offset: Int64, reachedEnd end: Int64,
                        announcedEnd: Int64?) {
        defer { monitor.broadcast() }
        guard serial == transferSerial, transfer != nil else { return }
        transfer = nil
        var outcome = outcome
        if outcome == nil, let announcedEnd, end < announcedEnd {
            outcome = VoiceNoteError(.network, "GET \(name): the answer ended after \(end - offset) of the \(announcedEnd - offset) bytes it announced")
        } else if outcome == nil, end == offset, let total, offset < total {
            outcome = VoiceNoteError(.network, "GET \(name): an empty answer for bytes=\(offset)-")
        }
        if let outcome {
            failure = outcome
            return
        }
        if total == nil && transferEnd == nil {
            ended = true
            total = end
        }
        responded = true
        if !closed, rangesSupported == true, let total, let hole = arrived.firstMissing(below: total) {
            startTransfer(at: hole)
        }
    }
}
