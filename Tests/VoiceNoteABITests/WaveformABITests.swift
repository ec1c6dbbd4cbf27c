import CVoiceNote
import Foundation
import Testing
import VoiceNoteWaveform
import VoiceNoteTestSupport
@testable import VoiceNoteABI
import VoiceNoteSources

/// The waveform and source functions through their C signatures: statuses, buffers, ownership.
@Suite struct WaveformABITests {
    func waveform(_ call: (UnsafeMutablePointer<Float>, Int, UnsafeMutablePointer<Int>) -> Int32, capacity: Int = 100) -> (Int32, [Float]) {
        var out = [Float](repeating: -1, count: capacity)
        var count = -1
        let status = out.withUnsafeMutableBufferPointer { call($0.baseAddress!, capacity, &count) }
        return (status, Array(out.prefix(max(0, count))))
    }

    @Test func fileMemoryAndSourceAgree() throws {
        let path = try Fixtures.path(.opus)
        let (fileStatus, fromFile) = waveform { vn_waveform_file(path, 100, $0, $1, $2) }
        #expect(fileStatus == VN_OK.rawValue && fromFile.count == 100)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let (memoryStatus, fromMemory) = waveform { out, capacity, count in
            bytes.withUnsafeBytes { vn_waveform_memory($0.baseAddress, $0.count, 100, out, capacity, count) }
        }
        #expect(memoryStatus == VN_OK.rawValue && fromMemory == fromFile)
        var source: OpaquePointer?
        #expect(vn_source_create_file(path, &source) == VN_OK.rawValue)
        defer { vn_source_destroy(source) }
        for _ in 0..<2 {  // each call reads from the start
            let (sourceStatus, fromSource) = waveform { vn_waveform_source(source, 100, $0, $1, $2) }
            #expect(sourceStatus == VN_OK.rawValue && fromSource == fromFile)
        }
    }

    @Test func hostCallbackSourceAndItsRelease() throws {
        final class Host { var bytes: [UInt8]; var offset = 0; var released = 0; init(_ b: [UInt8]) { bytes = b } }
        let host = Host(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(.mp3)))))
        let context = Unmanaged.passUnretained(host).toOpaque()
        var source: OpaquePointer?
        let created = vn_source_create_callbacks({ user, buffer, capacity in
            let host = Unmanaged<Host>.fromOpaque(user!).takeUnretainedValue()
            let count = min(capacity, host.bytes.count - host.offset)
            host.bytes.withUnsafeBytes { buffer!.copyMemory(from: $0.baseAddress! + host.offset, byteCount: count) }
            host.offset += count
            return Int64(count)
        }, { user, offset in
            let host = Unmanaged<Host>.fromOpaque(user!).takeUnretainedValue()
            host.offset = Int(offset)
            return offset <= host.bytes.count ? 0 : -1
        }, Int64(host.bytes.count), context, { user in
            Unmanaged<Host>.fromOpaque(user!).takeUnretainedValue().released += 1
        }, &source)
        #expect(created == VN_OK.rawValue)
        let (status, values) = waveform { vn_waveform_source(source, 100, $0, $1, $2) }
        #expect(status == VN_OK.rawValue && values.count == 100)
        var info = vn_audio_info()
        info.size = MemoryLayout<vn_audio_info>.size
        #expect(vn_audio_info_source(source, &info) == VN_OK.rawValue)
        #expect(withUnsafeBytes(of: info.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } == "mp3")
        #expect(info.duration_is_estimate == 0)  // an MP3 without a Xing tag, counted from its frames through the callbacks
        vn_source_destroy(source)
        #expect(host.released == 1)
        #expect(waveform({ vn_waveform_source(source, 100, $0, $1, $2) }).0 == VN_E_MISUSE.rawValue)
    }

    @Test func badArgumentsAndInputs() throws {
        let path = try Fixtures.path(.opus)
        #expect(waveform({ vn_waveform_file(path, 0, $0, $1, $2) }).0 == VN_E_INVALID_ARG.rawValue)
        #expect(waveform({ vn_waveform_file(path, 100, $0, 99, $2) }, capacity: 99).0 == VN_E_INVALID_ARG.rawValue)
        #expect(vn_waveform_file(path, 100, nil, 100, nil) == VN_E_INVALID_ARG.rawValue)
        #expect(vn_waveform_file(nil, 100, nil, 100, nil) == VN_E_INVALID_ARG.rawValue)
        #expect(waveform({ vn_waveform_file("/nonexistent/x.ogg", 100, $0, $1, $2) }).0 == VN_E_NOT_FOUND.rawValue)
        #expect(String(cString: vn_last_error_message()).contains("/nonexistent/x.ogg"))
        #expect(waveform({ vn_waveform_file(Fixtures.directory, 100, $0, $1, $2) }).0 == VN_E_INVALID_ARG.rawValue)
        let text = Array("not audio at all".utf8)
        let (status, _) = waveform { out, capacity, count in
            text.withUnsafeBytes { vn_waveform_memory($0.baseAddress, $0.count, 100, out, capacity, count) }
        }
        #expect(status == VN_E_FORMAT.rawValue)
        var info = vn_audio_info()
        info.size = 4
        #expect(vn_audio_info_file(path, &info) == VN_E_INVALID_ARG.rawValue)
        #expect(vn_source_create_callbacks(nil, nil, -1, nil, nil, nil) == VN_E_INVALID_ARG.rawValue)
    }

    @Test func pcmWaveformsPlaceEmptyBuckets() {
        let pcm: [Int16] = [32767, 32767, 32767]
        let (status, values) = waveform { out, capacity, count in vn_waveform_from_pcm_s16(pcm, 3, 1, 10, out, capacity, count) }
        #expect(status == VN_OK.rawValue)
        #expect(values == (0..<10).map { (($0 + 1) * 3 / 10) > ($0 * 3 / 10) ? 1 : 0 })
        let floats: [Float] = [0.5, -0.5, 0.5, -0.5]
        let (floatStatus, floatValues) = waveform { out, capacity, count in vn_waveform_from_pcm_f32(floats, 2, 2, 1, out, capacity, count) }
        #expect(floatStatus == VN_OK.rawValue)
        #expect(abs(floatValues[0] - Float((20 * log10(0.5) + 50) / 50)) < 1e-4)
        #expect(waveform({ vn_waveform_from_pcm_s16(pcm, 3, 0, 10, $0, $1, $2) }).0 == VN_E_INVALID_ARG.rawValue)
    }

    @Test func resampleBarsAndEncodings() throws {
        let values: [Float] = (1...10).map(Float.init)
        let (status, down) = waveform { vn_waveform_resample(values, 10, 5, $0, $1, $2) }
        #expect(status == VN_OK.rawValue && down == [1.5, 3.5, 5.5, 7.5, 9.5])
        let levels = [Float](repeating: 0.5, count: 100)
        let (barStatus, heights) = waveform { vn_waveform_bars(levels, 100, 35, 40, $0, $1, $2) }
        #expect(barStatus == VN_OK.rawValue && heights == [Float](repeating: 10, count: 10))
        var needed = 0
        #expect(vn_waveform_bars(levels, 100, 350, 40, nil, 0, &needed) == VN_E_INVALID_ARG.rawValue)
        #expect(needed == 100)

        var telegram = [Int32](repeating: 0, count: 63)
        var count = 0
        #expect(vn_waveform_encode(Int32(VN_WAVEFORM_TELEGRAM.rawValue), levels, 100, &telegram, 63, &count) == VN_OK.rawValue)
        #expect(count == 63)
        var decoded = [Float](repeating: 0, count: 100)
        #expect(vn_waveform_decode(Int32(VN_WAVEFORM_TELEGRAM.rawValue), telegram, 63, &decoded, 100, &count) == VN_OK.rawValue)
        #expect(count == 100 && decoded.allSatisfy { abs($0 - 0.5) <= 1.0 / 31 })
        #expect(vn_waveform_encode(Int32(VN_WAVEFORM_STREAM.rawValue), levels, 100, &telegram, 63, &count) == VN_E_INVALID_ARG.rawValue)
        #expect(vn_waveform_encode(42, levels, 100, &telegram, 63, &count) == VN_E_INVALID_ARG.rawValue)
        // Out-of-range values clamp, as the Swift decoders do; only an absurd count is a format error.
        let outOfRange: [Int32] = [5000, -3, 128]
        #expect(vn_waveform_decode(Int32(VN_WAVEFORM_SIGNAL.rawValue), outOfRange, 3, &decoded, 100, &count) == VN_OK.rawValue)
        #expect(Array(decoded.prefix(count)) == (try WaveformEncoding.signal.levels(decodingIntegers: [5000, -3, 128])))
        #expect(Array(decoded.prefix(count)) == [1, 0, Float(128) / 255])
        let matrix: [Int32] = [2048, -1, 512]
        #expect(vn_waveform_decode(Int32(VN_WAVEFORM_MATRIX.rawValue), matrix, 3, &decoded, 100, &count) == VN_OK.rawValue)
        #expect(Array(decoded.prefix(count)) == [1, 0, 0.5])
        let absurd = [Int32](repeating: 1, count: WaveformEncoding.maximumDecodedCount + 1)
        #expect(vn_waveform_decode(Int32(VN_WAVEFORM_MATRIX.rawValue), absurd, absurd.count, &decoded, 100, &count) == VN_E_FORMAT.rawValue)
    }
}
