import CVoiceNote
import VoiceNoteCore
import VoiceNoteDesktop
import VoiceNoteNetwork
import VoiceNotePlayer

/// The object behind a `vn_player *`: the player, its MPRIS presence when asked for, and the byte source it holds for `vn_player_load_source` (whose
/// claim is given back when the player loads another location or is destroyed).
final class PlayerHandle: Sendable {
    let player: Player
    /// The source the player holds for `vn_player_load_source` (loading it again is then "the same location").
    let sources = SourceHolder()
    /// Its MPRIS presence, when the options asked for one.
    let mpris: MPRISService?
    /// What pauses the desktop's other players while it plays, when the options asked for it.
    let otherPlayers: OtherPlayersFollower?

    init(_ player: Player, options: PlayerOptions = PlayerOptions()) throws(VoiceNoteError) {
        self.player = player
        var made: MPRISService?
        do throws(VoiceNoteError) {
            made = try options.mpris.map { (identity) throws(VoiceNoteError) in try MPRISService(player: player, identity: identity) }
            mpris = made
            otherPlayers = options.pausesOtherPlayers ? try OtherPlayersFollower.player(player) : nil
        } catch {
            made?.close()
            player.close()
            throw error
        }
    }

    /// Leaves the bus (the others resume), closes the player (sound stops, no more callbacks) and gives its source
    /// back.
    func close() {
        otherPlayers?.close()
        mpris?.close()
        player.close()
        sources.hold(nil)
    }
}

@c @implementation public func vn_player_create(_ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let value = try PlayerOptionsHandle.value(of: options, or: PlayerOptions())
        let player = try Player(configuration: value.configuration, dispatcher: value.dispatcher)
        out.pointee = Handles.make(try PlayerHandle(player, options: value))
    }
}

@c @implementation public func vn_player_destroy(_ player: OpaquePointer?) {
    Handles.remove(player, as: PlayerHandle.self)?.close()
}

/// Runs a control call on the player behind a handle.
private func control(_ player: OpaquePointer?, _ action: (Player) throws(VoiceNoteError) -> Void) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try action(try Handles.get(player, as: PlayerHandle.self, "player").player) }
}

/// A duration hint from C: negative is none; NaN, infinities and more than `Player.longestDuration` are refused.
private func durationHint(_ seconds: Double) throws(VoiceNoteError) -> Double? {
    guard seconds.isFinite, seconds <= Player.longestDuration else {
        throw VoiceNoteError(.invalidArgument, "duration_hint_s \(seconds) is outside 0…\(Int(Player.longestDuration)) seconds (negative for none)")
    }
    return seconds < 0 ? nil : seconds
}

@c @implementation public func vn_player_load(
    _ player: OpaquePointer?, _ location: UnsafePointer<CChar>?, _ autoplay: Int32, _ durationHintS: Double
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(player, as: PlayerHandle.self, "player")
        let location = try nonEmptyString(location, "location")
        let hint = try durationHint(durationHintS)
        try handle.player.load(PlayerLocation(parsing: location), autoplay: autoplay != 0, durationHint: hint)
        handle.sources.hold(nil)
    }
}

@c @implementation public func vn_player_load_with_loudness(
    _ player: OpaquePointer?, _ location: UnsafePointer<CChar>?, _ autoplay: Int32, _ durationHintS: Double,
    _ loudness: UnsafePointer<vn_loudness>?
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(player, as: PlayerHandle.self, "player")
        let location = try nonEmptyString(location, "location")
        let hint = try durationHint(durationHintS)
        try handle.player.load(PlayerLocation(parsing: location), autoplay: autoplay != 0, durationHint: hint,
                               loudness: try loudness?.pointee.checked())
        handle.sources.hold(nil)
    }
}

@c @implementation public func vn_player_load_url(
    _ player: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ key: UnsafePointer<CChar>?,
    _ autoplay: Int32, _ durationHintS: Double
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(player, as: PlayerHandle.self, "player")
        let text = try utf8String(url, "url")  // the player checks it is an http(s) URL, and that a key is not empty
        let settings = try HTTPOptionsHandle.value(of: options, or: HTTPOptions())
        let identity = try key.map { (text) throws(VoiceNoteError) in try utf8String(text, "key") }
        let hint = try durationHint(durationHintS)
        try handle.player.load(.url(text, options: settings, key: identity), autoplay: autoplay != 0, durationHint: hint)
        handle.sources.hold(nil)
    }
}

@c @implementation public func vn_player_load_source(
    _ player: OpaquePointer?, _ source: OpaquePointer?, _ autoplay: Int32, _ durationHintS: Double
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(player, as: PlayerHandle.self, "player")
        let sourceHandle = try Handles.get(source, as: SourceHandle.self, "source")
        let hint = try durationHint(durationHintS)
        // The source this player holds already is the same location (Stream's loadAsset rules); any other is claimed
        // here (`.busy` when another player holds it) and given back if the load fails.
        let held: HeldSource
        if let current = handle.sources.heldSource(for: sourceHandle) { held = current } else { held = try HeldSource(claiming: sourceHandle) }
        try handle.player.load(.source(held), autoplay: autoplay != 0, durationHint: hint)
        handle.sources.hold(held)
    }
}

@c @implementation public func vn_player_play(_ player: OpaquePointer?) -> Int32 { control(player) { (p) throws(VoiceNoteError) in try p.play() } }
@c @implementation public func vn_player_pause(_ player: OpaquePointer?) -> Int32 { control(player) { (p) throws(VoiceNoteError) in try p.pause() } }
@c @implementation public func vn_player_stop(_ player: OpaquePointer?) -> Int32 { control(player) { (p) throws(VoiceNoteError) in try p.stop() } }

@c @implementation public func vn_player_seek(_ player: OpaquePointer?, _ timeS: Double) -> Int32 {
    control(player) { (p) throws(VoiceNoteError) in try p.seek(to: timeS) }
}

@c @implementation public func vn_player_set_rate(_ player: OpaquePointer?, _ rate: Double) -> Int32 {
    control(player) { (p) throws(VoiceNoteError) in try p.setRate(rate) }
}

@c @implementation public func vn_player_set_volume(_ player: OpaquePointer?, _ volume: Double) -> Int32 {
    control(player) { (p) throws(VoiceNoteError) in try p.setVolume(volume) }
}

@c @implementation public func vn_player_set_leveling(
    _ player: OpaquePointer?, _ enabled: Int32, _ targetLUFS: Double, _ offsetDB: Double
) -> Int32 {
    control(player) { (p) throws(VoiceNoteError) in
        try p.setLeveling(Leveling(enabled: try flag(enabled, "enabled"), target: targetLUFS, offset: offsetDB))
    }
}

@c @implementation public func vn_player_set_skip_silence(_ player: OpaquePointer?, _ enabled: Int32) -> Int32 {
    control(player) { (p) throws(VoiceNoteError) in p.setSkipsSilence(enabled != 0) }
}

@c @implementation public func vn_player_subscribe(
    _ player: OpaquePointer?, _ callback: vn_player_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ outId: UnsafeMutablePointer<vn_subscription_id>?
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let player = try Handles.get(player, as: PlayerHandle.self, "player").player
        // Through the player, which queues its current context for this subscriber first.
        try subscribeC({ (handler, release, registered) throws(VoiceNoteError) in
            try player.subscribe(handler, release: release, registered: registered)
        }, callback, userData, release, outId) { event, subscriber in
            event.withCEvent { subscriber.function(subscriber.userData, $0) }
        }
    }
}

@c @implementation public func vn_player_get_context(_ player: OpaquePointer?, _ context: UnsafeMutablePointer<vn_player_context>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let player = try Handles.get(player, as: PlayerHandle.self, "player").player
        let context = try required(context, "context")
        guard context.pointee.size >= MemoryLayout<vn_player_context>.size else {
            throw VoiceNoteError(.invalidArgument, "context->size is \(context.pointee.size); set it to sizeof(vn_player_context)")
        }
        context.pointee = cContext(player.context, location: nil)
    }
}

@c @implementation public func vn_player_copy_location(_ player: OpaquePointer?, _ outLocation: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outLocation?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let player = try Handles.get(player, as: PlayerHandle.self, "player").player
        let outLocation = try required(outLocation, "out_location")
        outLocation.pointee = try ownedCString(player.context.location)
    }
}

/// The C context for a Swift one; `location` must outlive the use of the result.
func cContext(_ context: PlayerContext, location: UnsafePointer<CChar>?) -> vn_player_context {
    vn_player_context(size: MemoryLayout<vn_player_context>.size, state: context.state.rawValue,
                      duration_s: context.duration, current_time_s: context.currentTime, rate: context.rate,
                      is_seeking: context.isSeeking ? 1 : 0, buffered_fraction: context.bufferedFraction,
                      duration_is_estimate: context.durationIsEstimate ? 1 : 0, volume: context.volume,
                      skip_silence: context.skipsSilence ? 1 : 0, last_status: context.lastError?.status.rawValue ?? 0,
                      location: location, leveling: context.leveling.enabled ? 1 : 0,
                      leveling_target_lufs: context.leveling.target, leveling_offset_db: context.leveling.offset,
                      leveling_gain_db: context.levelingGain)
}

extension PlayerEvent: CEventConvertible {
    func fill(_ cEvent: inout vn_player_event, _ memory: CEventMemory) {
        switch self {
        case .context(let context):
            cEvent.type = Int32(VN_PLAYER_EVENT_CONTEXT.rawValue)
            cEvent.context = cContext(context, location: memory.string(context.location))
        case .finished(let location):
            cEvent.type = Int32(VN_PLAYER_EVENT_FINISHED.rawValue)
            cEvent.location = memory.string(location)
        case .failed(let error):
            cEvent.type = Int32(VN_PLAYER_EVENT_FAILED.rawValue)
            memory.failure(error, status: &cEvent.status, message: &cEvent.message)
        case .itemChanged(let location, let key):
            cEvent.type = Int32(VN_PLAYER_EVENT_ITEM_CHANGED.rawValue)
            cEvent.location = memory.string(location)
            cEvent.key = memory.string(key)
        case .listened(let location, let key):
            cEvent.type = Int32(VN_PLAYER_EVENT_LISTENED.rawValue)
            cEvent.location = memory.string(location)
            cEvent.key = memory.string(key)
        }
    }
}

@c @implementation public func vn_player_set_metadata(
    _ player: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ title: UnsafePointer<CChar>?, _ artist: UnsafePointer<CChar>?,
    _ artURL: UnsafePointer<CChar>?
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(player, as: PlayerHandle.self, "player")
        let key = try nonEmptyString(key, "key")
        func text(_ value: UnsafePointer<CChar>?, _ name: StaticString) throws(VoiceNoteError) -> String {
            try value.map { (text) throws(VoiceNoteError) in try utf8String(text, name) } ?? ""
        }
        let metadata = NoteMetadata(title: try text(title, "title"), artist: try text(artist, "artist"), artURL: try text(artURL, "art_url"))
        handle.mpris?.setMetadata(metadata, for: key)
    }
}

@c @implementation public func vn_player_copy_mpris_name(
    _ player: OpaquePointer?, _ outName: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outExported: UnsafeMutablePointer<Int32>?
) -> Int32 {
    outName?.pointee = nil
    outExported?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(player, as: PlayerHandle.self, "player")
        let out = try required(outName, "out_name")
        guard let mpris = handle.mpris else { throw VoiceNoteError(.misuse, "the player was made without MPRIS (vn_player_options_set_mpris)") }
        outExported?.pointee = mpris.isExported ? 1 : 0
        out.pointee = try ownedCString(mpris.busName)
    }
}
