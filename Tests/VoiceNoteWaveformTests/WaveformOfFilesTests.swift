#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteWaveform
import VoiceNoteSources

/// The waveform algorithm (docs/waveform.md) written out plainly in Double arithmetic, as the yardstick for the streaming implementation.
func referenceWaveform(_ pcm: [Int16], channels: Int, samples n: Int) -> [Float] {
    let frames = pcm.count / channels
    return (0..<n).map { i in
        let start = i * frames / n, end = (i + 1) * frames / n
        guard end > start else { return 0 }
        var sum = 0.0
        for index in (start * channels)..<(end * channels) {
            let magnitude = Double(pcm[index] == Int16.min ? Int16.max : abs(pcm[index])) / 32767
            sum += magnitude == 0 ? -50 : min(0, max(-50, 20 * log10(magnitude)))
        }
        let mean = sum / Double((end - start) * channels)
        return Float((mean + 50) / 50)
    }
}


@Suite struct WaveformOfFilesTests {
    @Test func opusWaveformIsTheAlgorithmOnItsOwnDecode() throws {
        let path = try Fixtures.path(.opus)
        let decoder = try Decoders.open(FileSource(path: path))
        var pcm: [Int16] = []
        while try decoder.decodeNext({ pcm.append(contentsOf: $0.samples) }) {}
        let values = try WaveformAnalysis.waveform(of: FileSource(path: path), samples: 100)
        #expect(values.count == 100)
        #expect(maximumDifference(values, referenceWaveform(pcm, channels: 1, samples: 100)) < 1e-5)
    }

    @Test func opusAt16kStaysWithinSpecOf48kDecode() throws {
        let path = try Fixtures.path(.opus)
        let values = try WaveformAnalysis.waveform(of: FileSource(path: path), samples: 100)
        let reference = referenceWaveform(try Fixtures.referencePCM(path, rate: 48_000, channels: 1), channels: 1, samples: 100)
        #expect(maximumDifference(values, reference) <= 0.05)
    }

    @Test func stereoAveragesBothChannels() throws {
        let path = try Fixtures.path(.opusStereo)
        let values = try WaveformAnalysis.waveform(of: FileSource(path: path), samples: 50)
        let reference = referenceWaveform(try Fixtures.referencePCM(path, rate: 16_000, channels: 2), channels: 2, samples: 50)
        #expect(maximumDifference(values, reference) <= 0.05)
    }

    @Test(arguments: [Fixtures.Kind.aacADTS, .m4a, .mp3, .wav, .flac, .vorbis, .opusSurround, .opusChained])
    func otherFormatsMatchTheAlgorithmOnTheSameAudio(kind: Fixtures.Kind) throws {
        let path = try Fixtures.path(kind)
        let decoder = try Decoders.open(FileSource(path: path))
        let values = try WaveformAnalysis.waveform(of: FileSource(path: path), samples: 100)
        var pcm = try Fixtures.referencePCM(path, rate: decoder.outputRate, channels: decoder.outputChannels)
        if kind == .m4a {
            // ffmpeg's command line decodes the last AAC frame whole; the edit list (and our decoder) ends earlier.
            pcm = Array(pcm.prefix(Int((decoder.info.duration * Double(decoder.outputRate)).rounded()) * decoder.outputChannels))
        }
        let reference = referenceWaveform(pcm, channels: decoder.outputChannels, samples: 100)
        #expect(values.count == 100)
        #expect(maximumDifference(values, reference) < 0.02)
    }

    @Test func memoryAndFileGiveTheSameValues() throws {
        let path = try Fixtures.path(.mp3)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try WaveformAnalysis.waveform(of: MemorySource(bytes: bytes)) == WaveformAnalysis.waveform(of: FileSource(path: path)))
    }

    @Test func moreSamplesThanFramesLeavesEmptyBucketsAtZero() throws {
        // A 3-frame WAV: buckets i with ⌊i·3/10⌋ == ⌊(i+1)·3/10⌋ are empty.
        let directory = try Fixtures.temporaryDirectory()
        let raw = directory + "/three.raw", wav = directory + "/three.wav"
        let frames: [Int16] = [16384, 16384, 16384]
        try Data(bytes: frames, count: 6).write(to: URL(fileURLWithPath: raw))
        try Fixtures.run(["sox", "-t", "raw", "-r", "48000", "-e", "signed", "-b", "16", "-c", "1", raw, wav])
        let values = try WaveformAnalysis.waveform(of: FileSource(path: wav), samples: 10)
        let filled = (0..<10).filter { (($0 + 1) * 3 / 10) > ($0 * 3 / 10) }
        #expect(values.count == 10)
        for i in 0..<10 { #expect((values[i] > 0) == filled.contains(i)) }
    }

    @Test func badInputKeepsItsStatus() throws {
        func status(_ body: () throws -> Void) -> Status? {
            do { try body(); return nil } catch let error as VoiceNoteError { return error.status } catch { return .internal }
        }
        let directory = try Fixtures.temporaryDirectory()
        let empty = directory + "/empty.ogg"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(status { _ = try WaveformAnalysis.waveform(of: FileSource(path: empty)) } == .format)
        #expect(status { _ = try WaveformAnalysis.waveform(of: FileSource(path: Fixtures.path(.opus)), samples: 0) } == .invalidArgument)
        #expect(status { _ = try WaveformAnalysis.waveform(of: FileSource(path: directory + "/missing.ogg")) } == .notFound)
        #expect(status { _ = try WaveformAnalysis.waveform(of: FileSource(path: directory)) } == .invalidArgument)
    }
}
