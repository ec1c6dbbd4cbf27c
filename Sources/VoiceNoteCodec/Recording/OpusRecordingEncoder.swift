import COpusEnc
import COpusShims
import VoiceNoteCore

/// Ogg Opus through libopusenc's pull API (the only libopusenc caller): the input rate as it is (libopusenc
/// resamples to 48 kHz itself and the header keeps the real rate), no decision delay, pages closed at least every
/// 0.5 s and written with our own write(2) loop as soon as they are ready (docs/recorder.md, "why nothing captured is lost").
final class OpusRecordingEncoder: RecordingEncoder {
    /// OPE_SET_MUXING_DELAY: a page holds at most 0.5 s (libopusenc's default is 1 s).
    static let muxingDelay: Int32 = 24_000
    /// The ENCODER comment; libopusenc writes its own vendor string ("libopus …, libopusenc …").
    static let encoderComment = "voicenote \(Version.string)"

    private(set) var framesWritten: Int64 = 0
    var bytesWritten: Int64 { file.size }

    let file: RecordingFile
    private let channels: Int
    /// Nil once finished.
    private var encoder: OpaquePointer?
    /// The last page holding audio (granule > 0): marked end-of-stream when finishing after a failed write.
    private var lastAudioPage: (offset: Int64, length: Int)?
    /// A codec failure; write failures are the file's.
    private var codecFailure: VoiceNoteError?
    init(path: String, inputRate: Int, channels: Int, settings: EncoderSettings) throws(VoiceNoteError) {
        let frameDuration = try Self.frameDurationRequest(milliseconds: settings.frameMilliseconds)
        guard (0...10).contains(settings.complexity) else {
            throw VoiceNoteError(.invalidArgument, "Opus complexity \(settings.complexity) is outside 0...10")
        }
        guard let comments = ope_comments_create() else { throw VoiceNoteError(.noMemory, "ope_comments_create failed") }
        defer { ope_comments_destroy(comments) }
        var error: Int32 = ope_comments_add(comments, "ENCODER", Self.encoderComment)
        guard error == OPE_OK else { throw Self.codecError(error, "ope_comments_add") }
        guard let encoder = ope_encoder_create_pull(comments, Int32(inputRate), Int32(channels), 0, &error),
              error == OPE_OK else {
            throw Self.codecError(error, "ope_encoder_create_pull(\(inputRate) Hz, \(channels) channels)")
        }
        do throws(VoiceNoteError) {
            let serial = Int32(bitPattern: UInt32.random(in: .min ... .max))  // libopusenc's rand() is never seeded
            try Self.check(vnshim_ope_set_serialno(encoder, serial), "OPE_SET_SERIALNO")
            try Self.check(vnshim_ope_set_decision_delay(encoder, 0), "OPE_SET_DECISION_DELAY")
            try Self.check(vnshim_ope_set_muxing_delay(encoder, Self.muxingDelay), "OPE_SET_MUXING_DELAY")
            try Self.check(vnshim_ope_set_application(encoder, OPUS_APPLICATION_VOIP), "OPUS_SET_APPLICATION")
            try Self.check(vnshim_ope_set_bitrate(encoder, Int32(settings.bitrate)), "OPUS_SET_BITRATE")
            try Self.check(vnshim_ope_set_vbr(encoder, 1), "OPUS_SET_VBR")
            try Self.check(vnshim_ope_set_complexity(encoder, Int32(settings.complexity)), "OPUS_SET_COMPLEXITY")
            try Self.check(vnshim_ope_set_frame_duration(encoder, frameDuration), "OPUS_SET_EXPERT_FRAME_DURATION")
            file = try RecordingFile(creating: path)
        } catch {
            ope_encoder_destroy(encoder)
            throw error
        }
        self.encoder = encoder
        self.channels = channels
    }

    deinit {
        if let encoder { ope_encoder_destroy(encoder) }
    }

    func write(_ pcm: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) {
        guard let encoder else { throw VoiceNoteError(.misuse, "write after finish") }
        try forEachChunk(of: pcm, channels: channels, chunk: 48_000, failure: codecFailure ?? file.failure) {
            (frames, count) throws(VoiceNoteError) in
            let result = ope_encoder_write(encoder, frames, Int32(count))
            guard result == OPE_OK else { throw fail(Self.codecError(result, "ope_encoder_write")) }
            framesWritten += Int64(count)
            try writePages(flush: false)
        }
    }

    func flush() throws(VoiceNoteError) {
        guard encoder != nil else { throw VoiceNoteError(.misuse, "flush after finish") }
        if let failure = codecFailure ?? file.failure { throw failure }
        // libopusenc creates its Ogg stream on the first samples written; flushing before that dereferences the
        // missing stream (a paused take with no audio yet has nothing to flush anyway).
        guard framesWritten > 0 else { return }
        try writePages(flush: true)
        try file.sync()
    }

    func finish() throws(VoiceNoteError) {
        guard let encoder else { return }
        self.encoder = nil
        defer { ope_encoder_destroy(encoder) }
        if codecFailure != nil || file.failure != nil {
            // The failure was reported by the write that met it: close what fitted as a finished stream.
            do throws(VoiceNoteError) {
                try markLastPageEndOfStream()
            } catch {
                try? file.close()
                throw error
            }
            try file.close()
            return
        }
        do throws(VoiceNoteError) {
            if framesWritten == 0 {
                // libopusenc 0.2.1 aborts (an assert) when draining a stream that was given no samples; one sample
                // of silence makes the empty take a valid one-sample stream every player opens.
                let silence = [Int16](repeating: 0, count: channels)
                let result = ope_encoder_write(encoder, silence, 1)
                guard result == OPE_OK else { throw fail(Self.codecError(result, "ope_encoder_write")) }
            }
            let result = ope_encoder_drain(encoder)
            guard result == OPE_OK else { throw fail(Self.codecError(result, "ope_encoder_drain")) }
            try writePages(flush: true, from: encoder)
            try file.close()
        } catch {
            try? markLastPageEndOfStream()
            try? file.close()
            throw error
        }
    }

    /// Takes every ready page from libopusenc (with `flush`, also the one being filled) and appends it.
    private func writePages(flush: Bool, from encoder: OpaquePointer? = nil) throws(VoiceNoteError) {
        guard let encoder = encoder ?? self.encoder else { return }
        var page: UnsafeMutablePointer<UInt8>?
        var length: Int32 = 0
        while true {
            let result = ope_encoder_get_page(encoder, &page, &length, flush ? 1 : 0)
            if result == 0 { return }
            guard result == 1, let page, length >= 27 else {
                throw fail(Self.codecError(result, "ope_encoder_get_page"))
            }
            let offset = file.size
            try file.appendOrThrow(UnsafeRawBufferPointer(start: page, count: Int(length)))
            let granule = (6..<14).reduce(Int64(0)) { $0 | Int64(page[$1]) << (8 * Int64($1 - 6)) }
            if granule > 0 { lastAudioPage = (offset, Int(length)) }
        }
    }

    /// Sets the end-of-stream flag on the last audio page in the file (in place: no new space needed).
    private func markLastPageEndOfStream() throws(VoiceNoteError) {
        guard let last = lastAudioPage, last.offset + Int64(last.length) <= file.size, file.isOpen else { return }
        let page = try file.read(at: last.offset, count: last.length)
        try file.overwrite(at: last.offset, OggReader.markingEndOfStream(page))
    }

    private func fail(_ error: VoiceNoteError) -> VoiceNoteError {
        codecFailure = codecFailure ?? error
        return error
    }

    /// OPUS_FRAMESIZE_* for a frame duration in milliseconds.
    private static func frameDurationRequest(milliseconds: Double) throws(VoiceNoteError) -> Int32 {
        switch milliseconds {
        case 2.5: OPUS_FRAMESIZE_2_5_MS
        case 5: OPUS_FRAMESIZE_5_MS
        case 10: OPUS_FRAMESIZE_10_MS
        case 20: OPUS_FRAMESIZE_20_MS
        case 40: OPUS_FRAMESIZE_40_MS
        case 60: OPUS_FRAMESIZE_60_MS
        default:
            throw VoiceNoteError(.invalidArgument, "Opus frame duration \(milliseconds) ms is not 2.5, 5, 10, 20, 40 or 60")
        }
    }

    private static func check(_ result: Int32, _ what: String) throws(VoiceNoteError) {
        guard result == OPE_OK else { throw codecError(result, what) }
    }

    private static func codecError(_ code: Int32, _ what: String) -> VoiceNoteError {
        let text = String(cString: ope_strerror(code))
        return VoiceNoteError(code == OPE_ALLOC_FAIL ? .noMemory : .internal, "\(what): \(text) (\(code))")
    }
}
