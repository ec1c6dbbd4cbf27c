#if canImport(Glibc)
import Glibc
#endif
import CDesktopBus
import CShims
import VoiceNoteCore
import VoiceNotePlayer

/// How a player names itself to the desktop's media controls.
public struct MPRISIdentity: Sendable, Equatable {
    /// The name applets show ("Fractal"); also the middle of the bus name, letters, digits and `_` kept.
    public var identity: String
    /// The host's desktop file without `.desktop` ("org.gnome.Fractal"), so applets show its icon; empty for none.
    public var desktopEntry: String

    /// An identity; the defaults name voicenote itself.
    public init(identity: String = "voicenote", desktopEntry: String = "") {
        self.identity = identity
        self.desktopEntry = desktopEntry
    }

    /// `identity` as a bus-name element: letters, digits and `_` (others become `_`), not starting with a digit, at
    /// most 64 bytes; "voicenote" when nothing is left.
    var busNameElement: String {
        var element = String(identity.unicodeScalars.prefix(64).map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        })
        if element.allSatisfy({ $0 == "_" }) { element = "voicenote" }
        if element.first?.isNumber == true { element = "_" + element }
        return element
    }
}

/// A player's MPRIS 2 presence (docs/desktop.md): while a note is loading, playing or paused, an MPRIS player on the
/// session bus (`org.mpris.MediaPlayer2.IDENTITY.instancePID_N`) shows its metadata (the host's title and sender,
/// the length, the position) and takes Play, Pause, PlayPause, Stop, Next (a queue's), Previous (the note from its
/// start), Seek, SetPosition, Rate and Volume from media keys, GNOME Shell and KDE's applets. Stopped or unloaded,
/// the name is gone and the connection closed, so an idle client never takes the media keys.
///
/// sd-bus is opened with dlopen on first use and driven by a thread of this object's own (`vn-mpris`), the one that
/// owns the connection: the player's events wake it through an eventfd; bus calls run the player's controls there
/// (they return at once). No session bus (a server, a test without one) is logged once and the player plays on.
public final class MPRISService: @unchecked Sendable {  // the inbox is locked; `bus` is the bus thread's alone
    /// What the player's events left for the bus thread.
    private struct Inbox {
        var context: PlayerContext?
        var seeked = false
        /// The last `itemChanged`: the location it named and its key.
        var current: (location: String, key: String)?
        var isQueue = false
        var metadata: [String: NoteMetadata] = [:]
        var metadataOrder: [String] = []
        var closing = false
    }

    /// The bus thread's state.
    private struct BusSide {
        var bus: SessionBus?
        var object: OpaquePointer?
        var named = false
        var track: UInt64 = 0
        var trackKey = ""
        /// What the exported object was last told (nil: nothing yet on this object): a progress step that changes
        /// none of it (the position is read live) sends nothing.
        var shown: Shown?
        var failureLogged = false
        /// Joining failed while the player was active: not tried again until it has been idle (no connection attempt
        /// per progress step on a machine without a session bus).
        var gaveUp = false
    }

    /// The properties the object was given, as compared between updates.
    private struct Shown: Equatable {
        var status: Int32, rate: Double, volume: Double, length: Double, track: UInt64
        var title: String, artist: String, url: String, artURL: String, canGoNext: Bool, canSeek: Bool
    }

    /// The most keys metadata is kept for (the least recently set go first).
    public static let metadataLimit = 1000

    private let player: Player
    /// The bus name this player takes while active.
    public let busName: String
    private let identity: MPRISIdentity
    private let inbox = Locked(Inbox())
    private let wake: Int32
    private nonisolated(unsafe) var bus = BusSide()
    private nonisolated(unsafe) var thread: LibraryThread?
    private nonisolated(unsafe) var subscription: UInt64 = 0
    private let exported = Locked(false)
    private let closed = Locked(false)

    private static let instances = Locked<UInt64>(0)
    private static let names = Locked<Set<String>>([])

    /// The bus names of this process's own MPRIS players (`OtherPlayers` never pauses them).
    static var ownNames: Set<String> { names.withLock { $0 } }

    /// Starts following `player`; nothing is on the bus until it loads a note.
    /// - Throws: `.io` when the thread or its eventfd cannot be made; `.misuse` for a closed player.
    public init(player: Player, identity: MPRISIdentity = MPRISIdentity()) throws(VoiceNoteError) {
        self.player = player
        self.identity = identity
        let serial = Self.instances.withLock { count -> UInt64 in
            count += 1
            return count
        }
        let name = "org.mpris.MediaPlayer2.\(identity.busNameElement).instance\(getpid())_\(serial)"
        busName = name
        Self.names.withLock { _ = $0.insert(name) }
        let fd = vnshim_eventfd()
        guard fd >= 0 else { throw VoiceNoteError.fromErrno(errno, "eventfd") }
        wake = fd
        do throws(VoiceNoteError) {
            thread = try LibraryThread(name: "vn-mpris") { [unowned self] in run() }
            subscription = try player.subscribe({ [weak self] event in self?.receive(event) })
        } catch {
            stopThread()
            Glibc.close(fd)
            throw error
        }
    }

    deinit {
        Glibc.close(wake)
        Self.names.withLock { _ = $0.remove(busName) }
    }

    /// Whether the bus name is taken now (a note is loaded and the session bus answered).
    public var isExported: Bool { exported.withLock { $0 } }

    /// What the media controls show for the note under `key` (the key `itemChanged` names, or the location as given
    /// to the load); kept for the `metadataLimit` most recent keys, shown at once when it is the current note's.
    public func setMetadata(_ metadata: NoteMetadata, for key: String) {
        inbox.withLock { inbox in
            if inbox.metadata.updateValue(metadata.bounded, forKey: key) == nil {
                inbox.metadataOrder.append(key)
                if inbox.metadataOrder.count > Self.metadataLimit { inbox.metadata[inbox.metadataOrder.removeFirst()] = nil }
            }
        }
        signal()
    }

    /// Leaves the bus (the name released, the connection closed) and stops following the player. Returns once the
    /// bus thread is gone (at once from the bus thread itself). Idempotent.
    public func close() {
        guard closed.withLock({ was in defer { was = true }; return !was }) else { return }
        try? SubscriptionRegistry.shared.end(id: subscription)
        stopThread()
    }

    private func stopThread() {
        inbox.withLock { $0.closing = true }
        signal()
        thread?.joinOrDetach()
    }

    // MARK: - The player's side (its event thread)

    private func receive(_ event: PlayerEvent) {
        let isQueue = player.isQueue
        inbox.withLock { inbox in
            switch event {
            case .context(let context):
                if let before = inbox.context, before.isSeeking, !context.isSeeking { inbox.seeked = true }
                inbox.context = context
            case .itemChanged(let location, let key):
                inbox.current = (location, key)
            case .finished, .failed, .listened:
                break
            }
            inbox.isQueue = isQueue
        }
        signal()
    }

    private func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
    }

    // MARK: - The bus thread

    private func run() {
        while true {
            var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0), bus.bus?.descriptor ?? pollfd(fd: -1, events: 0, revents: 0)]
            _ = poll(&descriptors, 2, bus.bus?.timeoutMilliseconds ?? -1)
            var drained: UInt64 = 0
            _ = Glibc.read(wake, &drained, 8)
            let (snapshot, seeked) = inbox.withLock { inbox -> (Inbox, Bool) in
                defer { inbox.seeked = false }
                return (inbox, inbox.seeked)
            }
            if snapshot.closing { return leave() }
            show(snapshot, seeked: seeked)
            if let current = bus.bus {
                do throws(VoiceNoteError) {
                    try current.process()
                } catch {
                    Log.write(.warning, "MPRIS: \(error.message)")
                    leave()
                }
            }
        }
    }

    /// Brings the bus up to date with the player: joined while a note is active, left when it is not.
    private func show(_ inbox: Inbox, seeked: Bool) {
        guard let context = inbox.context else { return }
        let active = context.state == .loading || context.state == .playing || context.state == .paused
        guard active else {
            bus.gaveUp = false
            return leave()
        }
        guard !bus.gaveUp, let object = join() else { return }
        // The key `itemChanged` named for this location; the location itself for a load without a data source.
        let key = inbox.current.flatMap { $0.location == context.location ? $0.key : nil } ?? context.location
        if key != bus.trackKey {
            bus.trackKey = key
            bus.track &+= 1
        }
        let metadata = inbox.metadata[key] ?? inbox.metadata[context.location] ?? NoteMetadata()
        let title = metadata.title.isEmpty ? Self.fileName(of: context.location) : metadata.title
        let shown = Shown(status: context.state == .playing ? Int32(VNBUS_MPRIS_PLAYING) : Int32(VNBUS_MPRIS_PAUSED),
                          rate: context.rate, volume: context.volume, length: context.duration, track: bus.track,
                          title: title, artist: metadata.artist, url: context.location, artURL: metadata.artURL,
                          canGoNext: inbox.isQueue, canSeek: context.state != .loading && context.duration > 0)
        if shown != bus.shown { update(object, shown) }
        if seeked { _ = vnbus_mpris_seeked(object, context.currentTime) }
        if !bus.named {
            do throws(VoiceNoteError) {
                try bus.bus?.requestName(busName)
                bus.named = true
                exported.withLock { $0 = true }
            } catch {
                logOnce(error)
                leave()
                bus.gaveUp = true
            }
        }
    }

    /// Tells the exported object `shown` (it emits PropertiesChanged for what differs) and remembers it.
    private func update(_ object: OpaquePointer, _ shown: Shown) {
        shown.title.withCString { title in
            shown.artist.withCString { artist in
                shown.url.withCString { url in
                    shown.artURL.withCString { art in
                        var state = vnbus_mpris_state(
                            status: shown.status, rate: shown.rate, volume: shown.volume, length: shown.length,
                            track: shown.track, title: title, artist: artist, url: url, art_url: art,
                            can_go_next: shown.canGoNext ? 1 : 0, can_go_previous: 1, can_seek: shown.canSeek ? 1 : 0)
                        _ = vnbus_mpris_update(object, &state)
                    }
                }
            }
        }
        bus.shown = shown
    }

    /// The exported object, connecting and exporting first when needed; nil when the bus is not there.
    private func join() -> OpaquePointer? {
        if let object = bus.object { return object }
        do throws(VoiceNoteError) {
            let connection = try SessionBus()
            var hooks = vnbus_mpris_hooks(context: Unmanaged.passUnretained(self).toOpaque(),
                                          command: { context, command, value in
                                              MPRISService.from(context).perform(command, value)
                                          },
                                          position: { context in MPRISService.from(context).player.context.currentTime })
            var object: OpaquePointer?
            let status = identity.identity.withCString { name in
                identity.desktopEntry.withCString { entry in vnbus_mpris_export(connection.connection, name, entry, &hooks, &object) }
            }
            guard status >= 0, let object else {
                throw VoiceNoteError(.device, "MPRIS object: \(SessionBus.describe(status))")
            }
            bus.bus = connection
            bus.object = object
            return object
        } catch {
            logOnce(error)
            bus.gaveUp = true
            return nil
        }
    }

    /// Leaves the bus: the name released, the object removed, the connection closed.
    private func leave() {
        if bus.named { bus.bus?.releaseName(busName) }
        vnbus_mpris_unexport(bus.object)
        bus.object = nil
        bus.shown = nil
        bus.named = false
        bus.bus = nil
        exported.withLock { $0 = false }
    }

    private func logOnce(_ error: VoiceNoteError) {
        guard !bus.failureLogged else { return }
        bus.failureLogged = true
        Log.write(.warning, "MPRIS: not on the session bus: \(error.message)")
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MPRISService {
        Unmanaged<MPRISService>.fromOpaque(context!).takeUnretainedValue()
    }

    /// A media key's or applet's command, on the bus thread; 0, or -EINVAL when the player refused.
    private func perform(_ command: Int32, _ value: Double) -> Int32 {
        do throws(VoiceNoteError) {
            let context = player.context
            switch UInt32(command) {
            case VNBUS_MPRIS_PLAY.rawValue: try player.play()
            // While loading too: the note then ends paused once loaded, rather than start playing after the key.
            case VNBUS_MPRIS_PAUSE.rawValue:
                if context.state == .playing || context.state == .loading { try player.pause() }
            case VNBUS_MPRIS_PLAY_PAUSE.rawValue: try context.state == .playing ? player.pause() : player.play()
            case VNBUS_MPRIS_STOP.rawValue: try player.stop()
            case VNBUS_MPRIS_NEXT.rawValue: if player.isQueue { try player.next() }
            case VNBUS_MPRIS_PREVIOUS.rawValue: try player.seek(to: 0)
            case VNBUS_MPRIS_SEEK_BY.rawValue: try player.seek(to: min(max(0, context.currentTime + value), context.duration))
            case VNBUS_MPRIS_SET_POSITION.rawValue: try player.seek(to: value)
            case VNBUS_MPRIS_SET_RATE.rawValue: try player.setRate(value)
            case VNBUS_MPRIS_SET_VOLUME.rawValue: try player.setVolume(value)
            default: return -EINVAL
            }
            return 0
        } catch {
            Log.write(.debug, "MPRIS: command \(command) refused: \(error.message)")
            return -EINVAL
        }
    }

    /// The last path element of a location, without a URL's query: a title when the host gave none.
    static func fileName(of location: String) -> String {
        let path = location.split(separator: "?", maxSplits: 1).first.map(String.init) ?? location
        return path.split(separator: "/").last.map(String.init) ?? location
    }
}
