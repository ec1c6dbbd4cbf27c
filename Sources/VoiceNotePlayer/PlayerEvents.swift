import VoiceNoteCore
import VoiceNoteWaveform

/// Where a player is (Stream's `AudioPlaybackState`).
public enum PlayerState: Int32, Sendable {
    /// Nothing loaded, or the last load failed (its location stays in the context).
    case notLoaded = 0
    /// Opening the location and reading its duration.
    case loading = 1
    /// Loaded and not sounding; `play` resumes at the current time.
    case paused = 2
    /// Sounding.
    case playing = 3
    /// Loaded, at 0: after `stop` or the end of the item.
    case stopped = 4
}

/// What a player shows (Stream's `AudioPlaybackContext`, plus buffering, the estimate flag, volume, skip silence and
/// the last error).
public struct PlayerContext: Sendable, Equatable {
    /// The location as it was given (a path, a `file://` URL, or a source's name); empty when none.
    public var location = ""
    /// Seconds; the duration hint until the real duration is known; 0 when nothing is loaded.
    public var duration = 0.0
    /// Seconds in the file's time that the listener hears now (the device's delay and the stretcher's backlog are
    /// taken off; skipped silence does not shift it).
    public var currentTime = 0.0
    /// The state.
    public var state = PlayerState.notLoaded
    /// The chosen rate, 0.5…2.5; kept while paused.
    public var rate = 1.0
    /// True from a seek until audio at the new position is ready.
    public var isSeeking = false
    /// How much of the item is available, 0…1 (1 for files, memory and host sources once loaded).
    public var bufferedFraction = 0.0
    /// Whether `duration` is an estimate (a hint, or a format that does not carry its length).
    public var durationIsEstimate = false
    /// The software volume, 0…1.
    public var volume = 1.0
    /// Whether pauses longer than 0.6 s are shortened.
    public var skipsSilence = false
    /// Levelled playback's settings (`Leveling.off` by default).
    public var leveling = Leveling.off
    /// The gain levelling gives the loaded note, dB (0 when it is not levelled).
    public var levelingGain = 0.0
    /// The last failure of this player (load, decode or device), nil when none since the last successful load.
    public var lastError: VoiceNoteError?

    /// The empty context.
    public init() {}
}

/// What a player tells its subscribers.
public enum PlayerEvent: Sendable, Equatable {
    /// A state change, a seek, a setting, or 100 ms of played audio (progress steps coalesce for slow subscribers).
    case context(PlayerContext)
    /// The item at `location` played to its end; the state is `stopped` at 0 now (a queue player's next item follows
    /// instead, when it has one).
    case finished(location: String)
    /// A load, decode or device failure; the context that follows says where the player is.
    case failed(VoiceNoteError)
    /// A queue player (docs/queue.md) moved to another item: its location as given and its key (the URL's key or
    /// the URL, the absolute path, or a source's name). Sent whenever the queue moves on, and for every load of
    /// another location the host makes while a data source is set, before the context of the new item.
    case itemChanged(location: String, key: String)
    /// The note at `location` (its key as in `itemChanged`) was heard to `Player.listenedFraction` of its duration,
    /// or to its end: it is listened now, kept in the player's `ResumeStore` across processes and restarts. Sent
    /// once per note — never for a note the store already had as listened —, before its `finished`, so a host can
    /// send a read receipt or the played marker.
    case listened(location: String, key: String)
}
