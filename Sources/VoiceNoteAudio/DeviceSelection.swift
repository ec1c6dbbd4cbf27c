/// Which ALSA PCM to open: a name from the system's configuration, or a name defined by configuration text of the
/// caller's own (opened with `snd_pcm_open_lconf`, so a virtual microphone needs no environment variable or file).
public struct DeviceSelection: Sendable, Equatable, CustomStringConvertible {
    /// The ALSA PCM name, e.g. `default`, `pulse`, `plughw:1,0`, or a `pcm.NAME` defined in `configuration`.
    public var name: String
    /// ALSA configuration text (`pcm.NAME { type ... }`). When set, `name` is looked up in this text only: the
    /// system configuration is not consulted, so slaves must be inline (`slave.pcm { type null }`). Values from
    /// outside (paths) are written into it through `ALSAConfigurationText`.
    public var configuration: String?

    /// Selects `name`, from the system configuration or from `configuration` when given.
    public init(name: String = "default", configuration: String? = nil) {
        self.name = name
        self.configuration = configuration
    }

    /// The name in quotes, marked when it comes from configuration text; for error messages.
    public var description: String {
        configuration == nil ? "\"\(name)\"" : "\"\(name)\" (from configuration text)"
    }
}
