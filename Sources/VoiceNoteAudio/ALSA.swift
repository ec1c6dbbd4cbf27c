import CALSA
import CRealtime
import VoiceNoteCore

#if canImport(Glibc)
import Glibc
#endif

/// The one place in VoiceNoteAudio that calls alsa-lib (the swift-system choke point). Every call runs with ALSA's
/// messages captured per thread (`snd_lib_error_set_local`, through CRealtime) so they never reach the host's stderr
/// and can go into our error text instead. The capture and playback threads themselves are C
/// (CRealtime/capture_loop.c, playback_loop.c).
enum ALSA {
    /// Which way a PCM moves audio; capture and playback are opened and configured by the same code.
    enum Direction {
        case capture, playback

        var stream: snd_pcm_stream_t { self == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK }
        /// For error messages: "capture device", "playback device".
        var noun: String { self == .capture ? "capture device" : "playback device" }
    }

    /// A configured PCM, ready for `vnshim_capture_create` or `vnshim_playback_create`.
    struct PCMSetup {
        let pcm: OpaquePointer
        let sampleRate: Int
        let channels: Int
        let periodFrames: Int
        let bufferFrames: Int
    }

    /// One entry of `snd_device_name_hint`.
    struct Hint {
        let name: String
        let description: String?
        let direction: String?
    }

    /// Runs `body` with ALSA's messages on this thread captured; returns its result and the last message ("" if
    /// none).
    static func capturingMessages<T>(_ body: () -> T) -> (T, String) {
        vnshim_alsa_errors_begin()
        defer { vnshim_alsa_errors_end() }
        let result = body()
        return (result, String(cString: vnshim_alsa_errors_last()))
    }

    /// `snd_strerror` of a negative ALSA/errno code.
    static func errorText(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }

    /// The status docs/errors.md gives a failed open or start: permission refused, out of memory, else a device problem
    /// (unknown PCM, no such device, busy, will not start).
    static func status(forError code: Int32) -> Status {
        switch -code {
        case EACCES, EPERM: .permission
        case ENOMEM: .noMemory
        default: .device
        }
    }

    /// "<what> <device>: <strerror> (ALSA: <message>)" with the status for `code`.
    static func error(_ code: Int32, _ what: String, _ device: DeviceSelection, alsaMessage: String) -> VoiceNoteError {
        var text = "\(what) \(device): \(errorText(code)) (error \(code))"
        if !alsaMessage.isEmpty { text += "; ALSA: \(alsaMessage)" }
        return VoiceNoteError(status(forError: code), text)
    }

    /// Opens `selection` for capture (non-blocking) and configures it: S16_LE interleaved, `channels` (or the
    /// nearest the device offers), the preferred rate where offered else the nearest offered rate with ALSA's
    /// resampler disabled (we report what the device delivers and never relabel), a period of about
    /// `periodMilliseconds` and a buffer of at least 8 periods.
    static func openCapture(_ selection: DeviceSelection, preferredRate: Int, channels: Int,
                            periodMilliseconds: Int) throws(VoiceNoteError) -> PCMSetup {
        try openPCM(.capture, selection, rate: preferredRate, channels: channels,
                    periodMilliseconds: periodMilliseconds)
    }

    /// Opens `selection` for playback (non-blocking) and configures it as `openCapture` does, except that ALSA's
    /// resampler is allowed: a `plug` PCM (`default` usually is one, as is `plughw:`) then takes `rate` whatever its
    /// hardware runs at; a PCM without one (`hw:`) gets its nearest offered rate, and the caller converts. The
    /// device starts by itself once its buffer is full (start threshold = buffer size).
    static func openPlayback(_ selection: DeviceSelection, rate: Int, channels: Int,
                             periodMilliseconds: Int) throws(VoiceNoteError) -> PCMSetup {
        try openPCM(.playback, selection, rate: rate, channels: channels, periodMilliseconds: periodMilliseconds)
    }

    private static func openPCM(_ direction: Direction, _ selection: DeviceSelection, rate: Int, channels: Int,
                                periodMilliseconds: Int) throws(VoiceNoteError) -> PCMSetup {
        guard (1...768_000).contains(rate) else {
            throw VoiceNoteError(.invalidArgument, "sample rate \(rate) is out of range")
        }
        guard (1...32).contains(channels) else {
            throw VoiceNoteError(.invalidArgument, "channel count \(channels) is out of range")
        }
        guard (1...1000).contains(periodMilliseconds) else {
            throw VoiceNoteError(.invalidArgument, "period of \(periodMilliseconds) ms is out of range")
        }
        vnshim_alsa_errors_begin()
        defer { vnshim_alsa_errors_end() }
        let pcm = try open(direction, selection)
        do {
            return try configure(direction, pcm, selection, rate: rate, channels: channels,
                                 periodMilliseconds: periodMilliseconds)
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
    }

    /// Closes a PCM that never reached `vnshim_capture_create` or `vnshim_playback_create`.
    static func close(_ pcm: OpaquePointer) {
        _ = capturingMessages { snd_pcm_close(pcm) }
    }

    private static func lastMessage() -> String { String(cString: vnshim_alsa_errors_last()) }

    /// A configuration tree holding `text` alone (the caller deletes it with `snd_config_delete`). Throws
    /// `.invalidArgument` for text that does not parse (with ALSA's message), `.noMemory`. Call with ALSA's messages
    /// captured.
    static func loadConfiguration(_ text: String, for selection: DeviceSelection) throws(VoiceNoteError) -> OpaquePointer {
        var top: OpaquePointer?
        guard snd_config_top(&top) == 0, let top else {
            throw VoiceNoteError(.noMemory, "cannot allocate an ALSA configuration")
        }
        var input: OpaquePointer?
        let loaded: Int32 = text.withCString { bytes in
            let made = snd_input_buffer_open(&input, bytes, strlen(bytes))
            guard made == 0, let input else { return made }
            defer { snd_input_close(input) }
            return snd_config_load(top, input)
        }
        guard loaded == 0 else {
            snd_config_delete(top)
            var text = "the ALSA configuration text for \(selection) does not parse: \(errorText(loaded))"
            let message = lastMessage()
            if !message.isEmpty { text += "; ALSA: \(message)" }
            throw VoiceNoteError(loaded == -ENOMEM ? .noMemory : .invalidArgument, text)
        }
        return top
    }

    private static func open(_ direction: Direction, _ selection: DeviceSelection) throws(VoiceNoteError) -> OpaquePointer {
        var pcm: OpaquePointer?
        let mode = Int32(SND_PCM_NONBLOCK)
        let result: Int32
        if let text = selection.configuration {
            let top = try loadConfiguration(text, for: selection)
            defer { snd_config_delete(top) }
            result = snd_pcm_open_lconf(&pcm, selection.name, direction.stream, mode, top)
        } else {
            result = snd_pcm_open(&pcm, selection.name, direction.stream, mode)
        }
        guard result == 0, let pcm else {
            throw error(result < 0 ? result : -EINVAL, "cannot open \(direction.noun)", selection,
                        alsaMessage: lastMessage())
        }
        return pcm
    }

    private static func configure(_ direction: Direction, _ pcm: OpaquePointer, _ selection: DeviceSelection,
                                  rate requestedRate: Int, channels: Int,
                                  periodMilliseconds: Int) throws(VoiceNoteError) -> PCMSetup {
        let device = direction.noun
        var hw: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hw) == 0, let hw else {
            throw VoiceNoteError(.noMemory, "cannot allocate ALSA hardware parameters")
        }
        defer { snd_pcm_hw_params_free(hw) }

        func check(_ result: Int32, _ what: String) throws(VoiceNoteError) {
            if result < 0 { throw error(result, what, selection, alsaMessage: lastMessage()) }
        }
        try check(snd_pcm_hw_params_any(pcm, hw), "cannot read the configurations of \(device)")
        switch direction {
        case .capture:
            // Only rates the device really delivers: libopusenc resamples any rate itself, better than ALSA's default.
            try check(snd_pcm_hw_params_set_rate_resample(pcm, hw, 0), "cannot disable resampling on \(device)")
        case .playback:
            // A plug PCM may resample to the rate asked for; the player converts whatever else the device takes.
            try check(snd_pcm_hw_params_set_rate_resample(pcm, hw, 1), "cannot enable resampling on \(device)")
        }
        try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED),
                  "interleaved \(direction == .capture ? "read" : "write") access is not offered by \(device)")
        try check(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE),
                  "16-bit little-endian samples are not offered by \(device)")
        var channelCount = UInt32(channels)
        try check(snd_pcm_hw_params_set_channels_near(pcm, hw, &channelCount),
                  "no channel count near \(channels) is offered by \(device)")
        var rate = UInt32(requestedRate)
        var subunitDirection: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &subunitDirection),
                  "no sample rate near \(requestedRate) Hz is offered by \(device)")
        var period = snd_pcm_uframes_t(max(1, Int(rate) * periodMilliseconds / 1000))
        subunitDirection = 0
        try check(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &subunitDirection),
                  "no period near \(periodMilliseconds) ms is offered by \(device)")
        // At least 8 periods where the device allows it; a device that cannot is still used with what it has.
        var minimumBuffer = period * 8
        _ = snd_pcm_hw_params_set_buffer_size_min(pcm, hw, &minimumBuffer)
        var buffer = period * 8
        try check(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer),
                  "no buffer of 8 periods is offered by \(device)")
        try check(snd_pcm_hw_params(pcm, hw), "cannot configure \(device)")

        // What was installed, as the device reports it.
        subunitDirection = 0
        _ = snd_pcm_hw_params_get_rate(hw, &rate, &subunitDirection)
        _ = snd_pcm_hw_params_get_channels(hw, &channelCount)
        subunitDirection = 0
        _ = snd_pcm_hw_params_get_period_size(hw, &period, &subunitDirection)
        _ = snd_pcm_hw_params_get_buffer_size(hw, &buffer)

        var sw: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&sw) == 0, let sw else {
            throw VoiceNoteError(.noMemory, "cannot allocate ALSA software parameters")
        }
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(pcm, sw), "cannot read the software parameters of \(device)")
        // Wake the thread once per period (of frames to read, or of room to write).
        try check(snd_pcm_sw_params_set_avail_min(pcm, sw, period), "cannot set the wake-up size of \(device)")
        if direction == .playback {
            // Start once the buffer is full (the loop starts it earlier when its ring runs dry), stop when it is empty.
            try check(snd_pcm_sw_params_set_start_threshold(pcm, sw, buffer),
                      "cannot set the start threshold of \(device)")
            try check(snd_pcm_sw_params_set_stop_threshold(pcm, sw, buffer),
                      "cannot set the stop threshold of \(device)")
        }
        try check(snd_pcm_sw_params(pcm, sw), "cannot apply the software parameters of \(device)")

        return PCMSetup(pcm: pcm, sampleRate: Int(rate), channels: Int(channelCount),
                        periodFrames: Int(period), bufferFrames: Int(buffer))
    }

    /// The PCMs of the system configuration, as `snd_device_name_hint(-1, "pcm")` lists them.
    static func pcmHints() -> [Hint] {
        capturingMessages { () -> [Hint] in
            var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
            guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
            defer { snd_device_name_free_hint(hints) }
            var result: [Hint] = []
            var index = 0
            while let hint = hints[index] {
                index += 1
                guard let name = take(snd_device_name_get_hint(hint, "NAME")) else { continue }
                result.append(Hint(name: name, description: take(snd_device_name_get_hint(hint, "DESC")),
                                   direction: take(snd_device_name_get_hint(hint, "IOID"))))
            }
            return result
        }.0
    }

    /// A string alsa-lib allocated, copied and freed.
    private static func take(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        guard let text else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}
