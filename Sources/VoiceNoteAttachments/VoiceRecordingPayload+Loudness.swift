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
        guard let loudness = Self.read(value, keys: ("integrated_lufs", "range_lu", "true_peak_dbtp"), figure: \.number)
        else { return nil }
        self = loudness
    }

    /// The loudness in `value`, an object with the three `keys` (integrated, range, true peak) whose members
    /// `figure` reads (nil: not a figure); `null` integrated and true peak are a silent note's. Nil for anything else,
    /// or for figures out of `isPlausible`'s ranges.
    private static func read(_ value: JSONValue?, keys: (String, String, String),
                             figure: (JSONValue) -> Double?) -> Loudness? {
        guard let object = value?.object else { return nil }
        func member(_ key: String, silentAllowed: Bool) -> Double? {
            switch object[key] {
            case .null? where silentAllowed: return -.infinity
            case let present?: return figure(present)
            case nil: return nil
            }
        }
        guard let integrated = member(keys.0, silentAllowed: true), let range = member(keys.1, silentAllowed: false),
              let truePeak = member(keys.2, silentAllowed: true) else { return nil }
        let loudness = Loudness(integrated: integrated, range: range, truePeak: truePeak)
        return loudness.isPlausible ? loudness : nil
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
        let keys = ("integrated_lufs_x100", "range_lu_x100", "true_peak_dbtp_x100")
        guard let loudness = Self.read(value, keys: keys, figure: { member in
            guard case .integer(let hundredths) = member, abs(hundredths) <= 1_000_000 else { return nil }
            return Double(hundredths) / 100
        }) else { return nil }
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
