import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteWaveform

extension Loudness {
    /// The JSON a payload carries (docs/attachments.md, "Loudness"): `{"integrated_lufs": −19.3, "range_lu": 2.1,
    /// "true_peak_dbtp": −1.2}`, reals rounded to 0.01; `integrated_lufs` and `true_peak_dbtp` are `null` for a
    /// silent note.
    public var json: JSONValue {
        func rounded(_ value: Double) -> JSONValue { value.isFinite ? .real((value * 100).rounded() / 100) : .null }
        return .object(JSONObject([
            ("integrated_lufs", rounded(integrated)), ("range_lu", rounded(range)), ("true_peak_dbtp", rounded(truePeak)),
        ]))
    }

    /// Reads what `json` writes; nil for anything else (a missing or non-numeric member, a figure out of
    /// `isPlausible`'s ranges): a stranger's payload never sets a gain it should not.
    public init?(json value: JSONValue?) {
        guard let object = value?.object else { return nil }
        func figure(_ key: String, silentAllowed: Bool) -> Double?? {
            switch object[key] {
            case .null? where silentAllowed: return .some(-.infinity)
            case let member?: return member.number.map { .some($0) } ?? nil
            case nil: return nil
            }
        }
        guard let integrated = figure("integrated_lufs", silentAllowed: true) ?? nil,
              let range = figure("range_lu", silentAllowed: false) ?? nil,
              let truePeak = figure("true_peak_dbtp", silentAllowed: true) ?? nil else { return nil }
        let loudness = Loudness(integrated: integrated, range: range, truePeak: truePeak)
        guard loudness.isPlausible else { return nil }
        self = loudness
    }
}

extension Loudness {
    /// The figures as a Matrix content carries them (`MatrixVoiceMessage.loudnessKey`): integers in hundredths,
    /// `{"integrated_lufs_x100": -1931, "range_lu_x100": 210, "true_peak_dbtp_x100": -102}`, since Matrix events are
    /// canonical JSON and homeservers refuse reals in them; `null` for a silent note's integrated loudness and true
    /// peak.
    public var matrixJSON: JSONValue {
        func hundredths(_ value: Double) -> JSONValue { value.isFinite ? .integer(Int64((value * 100).rounded())) : .null }
        return .object(JSONObject([
            ("integrated_lufs_x100", hundredths(integrated)), ("range_lu_x100", hundredths(range)),
            ("true_peak_dbtp_x100", hundredths(truePeak)),
        ]))
    }

    /// Reads what `matrixJSON` writes; nil for anything else (reals, members missing, figures out of range).
    public init?(matrixJSON value: JSONValue?) {
        guard let object = value?.object else { return nil }
        func figure(_ key: String, silentAllowed: Bool) -> Double?? {
            switch object[key] {
            case .null? where silentAllowed: return .some(-.infinity)
            case .integer(let hundredths)? where abs(hundredths) <= 1_000_000: return .some(Double(hundredths) / 100)
            default: return nil
            }
        }
        guard let integrated = figure("integrated_lufs_x100", silentAllowed: true) ?? nil,
              let range = figure("range_lu_x100", silentAllowed: false) ?? nil,
              let truePeak = figure("true_peak_dbtp_x100", silentAllowed: true) ?? nil else { return nil }
        let loudness = Loudness(integrated: integrated, range: range, truePeak: truePeak)
        guard loudness.isPlausible else { return nil }
        self = loudness
    }
}

extension VoiceRecordingPayload {
    /// The extra-data key of the note's loudness in a Stream payload (`Loudness.json`).
    public static let loudnessKey = "voicenote_loudness"

    /// The note's loudness from the extra data, so a receiver can level it without measuring; nil when absent or
    /// not a plausible loudness.
    public var loudness: Loudness? {
        Loudness(json: object[Self.loudnessKey])
    }

    /// Sets the loudness in the extra data (nil removes it), in place when it was there, else appended.
    public mutating func setLoudness(_ loudness: Loudness?) {
        var extra = extraData
        extra[Self.loudnessKey] = loudness?.json
        // Only the loudness changes and its reals are finite or null: nothing setExtraData refuses.
        try? setExtraData(extra)
    }
}
