import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport
@testable import VoiceNoteTranscript

/// PocketSphinx through voicenote against PocketSphinx's own tool (`pocketsphinx_continuous -infile`, the
/// reference decoder) on the same samples.
@Suite struct PocketSphinxTests {
    /// Sentences PocketSphinx's English model hears well enough from espeak-ng's `en-us+f2` voice that some words
    /// come out right whichever pipeline fed it, with pauses that end an utterance between them (word times go on
    /// across utterances).
    static let sentence = "<speak>Open the door please.<break time='1200ms'/>Call me tomorrow morning.<break time='1200ms'/>The weather is nice today.</speak>"

    /// A 16 kHz mono WAV of `sentence` (what the reference tool reads), made once.
    static func speech16k(in directory: String) throws -> String {
        let raw = directory + "/raw.wav", wav = directory + "/speech16k.wav"
        try Fixtures.run(["espeak-ng", "-m", "-v", "en-us+f2", "-s", "160", "-w", raw, sentence])
        try Fixtures.run(["sox", "-R", raw, "-r", "16000", "-c", "1", "-b", "16", wav, "pad", "0.3", "0.5"])
        return wav
    }

    /// The reference tool's words and times for a 16 kHz WAV (fillers dropped as ours are).
    static func reference(_ wav: String) throws -> [(String, Double, Double)] {
        let output = String(decoding: try Fixtures.run(["pocketsphinx_continuous", "-infile", wav, "-time", "yes", "-logfn", "/dev/null"]), as: UTF8.self)
        return output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let start = Double(fields[1]), let end = Double(fields[2]),
                  let word = PocketSphinxSession.spoken(String(fields[0])) else { return nil }
            return (word, start, end)
        }
    }

    static func transcribe(_ path: String, cache: MediaCache = MediaCache()) throws -> (Transcript, [[TranscriptWord]]) {
        let told = Locked<[[TranscriptWord]]>([])
        let transcription = Transcription(open: { () throws(VoiceNoteError) in try FileSource(path: path) },
                                          backend: try PocketSphinxBackend(), cache: cache)
        _ = try transcription.events.subscribe({ event in
            if case .words(let words) = event { told.withLock { $0.append(words) } }
        }, release: nil)
        try transcription.start()
        let (ended, transcript) = transcription.wait(seconds: 120)
        #expect(ended)
        return (try #require(transcript), told.withLock { $0 })
    }

    @Test func theSameSamplesGiveTheReferenceToolsWordsAndTimes() throws {
        let directory = try Fixtures.temporaryDirectory()
        let wav = try Self.speech16k(in: directory)
        let cache = MediaCache()
        try cache.setDirectory(directory + "/cache")
        let (transcript, told) = try Self.transcribe(wav, cache: cache)
        let reference = try Self.reference(wav)
        #expect(transcript.words.map(\.text) == reference.map(\.0))
        for (word, expected) in zip(transcript.words, reference) {
            #expect(abs(word.start - expected.1) < 0.011 && abs(word.end - expected.2) < 0.011, "\(word) vs \(expected)")
        }
        #expect(told.flatMap { $0 } == transcript.words && told.count == 3, "\(told.count) word events")
    }
}
