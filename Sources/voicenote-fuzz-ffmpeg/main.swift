// Fuzz target over FFmpeg's path alone, with the container and codec whitelist in place: arbitrary bytes, Ogg
// included, go straight to `FFmpegDecoder` (info, then every frame), so the fuzzer explores what FFmpeg's
// demuxers and decoders do with them, never Opus's own reader. Seeds hold hostile containers (concat lists,
// DASH and HLS manifests, gzip) beside speech in every voice format: none may open a file, fetch a URL, hang or
// grow without bound. Built with `--sanitize=fuzzer` (debug, so the internal decoder is reachable); built
// normally it is an empty program. No top-level statements: fuzzer builds parse as a library.
@testable import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// One fuzz input: FFmpeg's info, then decode to the end (bounded by the decoder's own limits).
func fuzzOne(_ bytes: [UInt8]) {
    guard let decoder = try? FFmpegDecoder(source: MemorySource(bytes: bytes)) else { return }
    var chunks = 0
    while chunks < 100_000, (try? decoder.decodeNext({ _ in chunks += 1 })) == true {}
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
