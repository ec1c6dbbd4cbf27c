import VoiceNoteCore

/// An ALSA PCM device as enumeration lists it.
public struct AudioDevice: Sendable, Equatable {
    /// The ALSA name to open, e.g. "default", "pulse", "hw:0,0".
    public let name: String
    /// ALSA's description, one line.
    public let description: String
    /// Whether it can capture.
    public let canCapture: Bool
    /// Whether it can play.
    public let canPlay: Bool

    /// Makes a device entry.
    public init(name: String, description: String, canCapture: Bool, canPlay: Bool) {
        self.name = name
        self.description = description
        self.canCapture = canCapture
        self.canPlay = canPlay
    }
}

/// The PCM devices the system's ALSA configuration offers.
public enum AudioDevices {
    /// Every PCM that ALSA's name hints list (`snd_device_name_hint(-1, "pcm")`), in ALSA's order: the name, the
    /// first line of its description (the name itself when it has none) and its direction (`IOID`; none means
    /// both). ALSA's own messages during the scan are kept off stderr. Empty when ALSA cannot list anything.
    /// Any thread.
    public static func list() -> [AudioDevice] {
        ALSA.pcmHints().map { hint in
            let firstLine = hint.description?.split(separator: "\n", omittingEmptySubsequences: true).first
                .map { String($0) } ?? ""
            return AudioDevice(name: hint.name, description: firstLine.isEmpty ? hint.name : firstLine,
                               canCapture: hint.direction != "Output", canPlay: hint.direction != "Input")
        }
    }
}
