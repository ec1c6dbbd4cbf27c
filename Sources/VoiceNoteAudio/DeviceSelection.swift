/// Which ALSA PCM to open: a name from the system's configuration, or a name defined by configuration text of the
/// caller's own (opened with `snd_pcm_open_lconf`, so a virtual microphone needs no environment variable or file).
public struct DeviceSelection: Sendable, Equatable, CustomStringConvertible {
    /// The ALSA PCM name, e.g. `default`, `pulse`, `plughw:1,0`, or a `pcm.NAME` defined in `configuration`.
    public var name: String
    /// ALSA configuration text (`pcm.NAME { type ... }`). When set, `name` is looked up in this text only: the
    /// system configuration is not consulted, so slaves must be inline (`slave.pcm { type null }`). Values from
    /// outside (paths) are written into it through `ALSAConfigurationText`.
    public var configuration: String?
    /// The stream's `media.role` on a PulseAudio (or pipewire-pulse) server ("phone", "music", ...), or nil for none.
    /// With a role, a PCM that ALSA would send to the server through its pulse plugin (`pulse`, or `default` while a
    /// server runs, or a `type pulse` PCM of `configuration`) is opened through libpulse itself on that PCM's server
    /// and device, because only there can a stream carry a role; anywhere else (no server, another PCM) the role is
    /// not set and ALSA opens the PCM as without one. 1 to 64 bytes of printable ASCII.
    public var role: String?

    /// Selects `name`, from the system configuration or from `configuration` when given, with `role` for its stream.
    public init(name: String = "default", configuration: String? = nil, role: String? = nil) {
        self.name = name
        self.configuration = configuration
        self.role = role
    }

    /// Whether `role` may be a stream role: 1 to 64 bytes of printable ASCII (PulseAudio's property values are
    /// free text; the ones its policies know are "video", "music", "game", "event", "phone", "animation",
    /// "production", "a11y" and "test").
    public static func isValidRole(_ role: String) -> Bool {
        let bytes = Array(role.utf8)
        return (1...64).contains(bytes.count) && bytes.allSatisfy { (0x20...0x7e).contains($0) }
    }

    /// The name in quotes, marked when it comes from configuration text; for error messages.
    public var description: String {
        configuration == nil ? "\"\(name)\"" : "\"\(name)\" (from configuration text)"
    }
}
