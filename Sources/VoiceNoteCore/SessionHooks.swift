/// What a session hook is asked about.
public enum SessionKind: Int32, Sendable {
    /// Playback is about to start, or has stopped.
    case playback = 0
    /// Recording is about to start, or has stopped.
    case recording = 1
}

/// The host's audio-session hooks (Stream's `configure(_ audioSessionConfigurator:)`, docs/recorder.md): asked synchronously
/// before a device opens (and may refuse: the action fails with `.busy`), told after it closes. A client in a call
/// uses them so voice notes do not fight the call's audio.
public struct SessionHooks: Sendable {
    /// Returns false to refuse; runs on the thread that called `begin` or `play`.
    public var activate: (@Sendable (SessionKind) -> Bool)?
    /// Runs on the thread that closed the device (the caller's, or the library thread that ended the take).
    public var deactivate: (@Sendable (SessionKind) -> Void)?

    /// Hooks; nil members are not called.
    public init(activate: (@Sendable (SessionKind) -> Bool)? = nil, deactivate: (@Sendable (SessionKind) -> Void)? = nil) {
        self.activate = activate
        self.deactivate = deactivate
    }
}
