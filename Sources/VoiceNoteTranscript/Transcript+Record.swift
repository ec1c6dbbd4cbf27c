import VoiceNoteCore

/// A transcript as the text kept in the media cache (`KeptRecord.transcript`): a first line `VNTRANSCRIPT1`, a
/// line `recogniser <identity>`, then one line per word: start, end and confidence (decimal, as Swift prints a
/// Double) and the word, separated by tabs. Parsing is strict: a record that is not exactly this is not served.
extension Transcript {
    static let recordMagic = "VNTRANSCRIPT1"

    /// The record's text.
    var record: String {
        var lines = [Self.recordMagic, "recogniser \(recogniser)"]
        for word in words { lines.append("\(word.start)\t\(word.end)\t\(word.confidence)\t\(word.text)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The transcript of `record`, or nil for anything but a whole, well-formed record.
    init?(record: String) {
        var lines = record.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines.removeLast().isEmpty, lines.removeFirst() == Self.recordMagic else { return nil }
        let header = lines.removeFirst()
        guard header.hasPrefix("recogniser "), header.count > "recogniser ".count else { return nil }
        var words: [TranscriptWord] = []
        words.reserveCapacity(lines.count)
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4, let start = Double(fields[0]), let end = Double(fields[1]),
                  let confidence = Double(fields[2]),
                  let word = try? TranscriptWord(text: String(fields[3]), start: start, end: end, confidence: confidence)
            else { return nil }
            words.append(word)
        }
        self.init(words: words, recogniser: String(header.dropFirst("recogniser ".count)))
    }
}
