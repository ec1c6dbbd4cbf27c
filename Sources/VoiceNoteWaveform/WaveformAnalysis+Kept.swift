import VoiceNoteCore
import VoiceNoteSources

/// An analysis kept beside its media (`KeptAnalysis`: the media cache's, for a URL's note), so analysing the same
/// note again — a replay's levelling, a second waveform — reads a few hundred bytes instead of decoding.
extension WaveformAnalysis.Result {
    /// The text kept: `voicenote-analysis 1`, then `duration D`, `loudness I R TP` (`loudness none` when it was not
    /// measured; `-inf` for a silent note's figures) and `values V…`, one per line.
    var record: String {
        let loudnessLine = loudness.map { "loudness \($0.integrated) \($0.range) \($0.truePeak)" } ?? "loudness none"
        return ["voicenote-analysis 1", "duration \(duration)", loudnessLine,
                "values " + values.map { String($0) }.joined(separator: " ")].joined(separator: "\n") + "\n"
    }

    /// Reads what `record` writes; nil for anything else (another version, a missing line, a value out of range, a
    /// loudness `Loudness.isPlausible` refuses): a damaged file is analysed again, never trusted.
    init?(record: String) {
        let lines = record.split(separator: "\n", omittingEmptySubsequences: false).map { $0.split(separator: " ") }
        guard lines.count == 5, lines[4].isEmpty, lines[0] == ["voicenote-analysis", "1"],
              lines[1].count == 2, lines[1][0] == "duration", let duration = Double(lines[1][1]),
              duration.isFinite, duration > 0, duration <= 1e9,
              lines[2].first == "loudness", lines[3].first == "values" else { return nil }
        var loudness: Loudness?
        if lines[2] != ["loudness", "none"] {
            let figures = lines[2].dropFirst().compactMap { Double($0) }
            guard figures.count == 3, lines[2].count == 4 else { return nil }
            let read = Loudness(integrated: figures[0], range: figures[1], truePeak: figures[2])
            guard read.isPlausible else { return nil }
            loudness = read
        }
        let values = lines[3].dropFirst().compactMap { Float($0) }
        guard values.count == lines[3].count - 1, (1...Waveform.maximumSampleCount).contains(values.count),
              values.allSatisfy({ (0...1).contains($0) }) else { return nil }
        self.init(values: values, duration: duration, loudness: loudness)
    }
}

extension WaveformAnalysis {
    /// The analysis kept for `source`'s media with `samples` values (and a loudness, when `loudness`; without one
    /// otherwise, as a fresh analysis would have none), or nil.
    static func kept(for source: ByteSource, samples: Int, loudness: Bool) -> Result? {
        guard let text = source.keptAnalysis?.read(), var result = Result(record: text),
              result.values.count == samples, !loudness || result.loudness != nil else { return nil }
        if !loudness { result.loudness = nil }
        return result
    }

    /// Keeps `result` for `source`'s media, unless it has no loudness and what is kept has one.
    static func keep(_ result: Result, for source: ByteSource) {
        guard let kept = source.keptAnalysis else { return }
        if result.loudness == nil, let previous = kept.read().flatMap({ Result(record: $0) }), previous.loudness != nil { return }
        kept.write(result.record)
    }

    /// The loudness kept for `source`'s media (a whole-note figure from an earlier analysis), or nil: what levelled
    /// playback takes instead of its pre-pass.
    public static func keptLoudness(of source: ByteSource) -> Loudness? {
        source.keptAnalysis?.read().flatMap { Result(record: $0) }?.loudness
    }
}
