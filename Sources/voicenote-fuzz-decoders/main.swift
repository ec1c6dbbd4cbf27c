// Fuzz target over every decoder and the waveform: arbitrary bytes in, a status or a waveform out; never a crash,
// a hang or unbounded memory. Built with `--sanitize=fuzzer`, libFuzzer's main drives it (and replays files given
// as arguments); built normally, it is an empty program. No top-level statements: fuzzer builds parse as a library.
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteWaveform
import VoiceNoteSources

/// One fuzz input: info and waveform of the bytes, from memory.
func fuzzOne(_ bytes: [UInt8]) {
    _ = try? Decoders.info(of: MemorySource(bytes: bytes))
    _ = try? WaveformAnalysis.waveform(of: MemorySource(bytes: bytes), samples: 37)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
