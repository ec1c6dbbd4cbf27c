import CALSA
import CRealtime
import VoiceNoteCore

#if canImport(Glibc)
import Glibc
#endif

/// A stream on a PulseAudio (or pipewire-pulse) server through libpulse itself, for a device opened with a stream
/// role (`DeviceSelection.role`): ALSA's pulse plugin cannot give its streams one. `CaptureDevice` and
/// `PlaybackDevice` use it in place of an ALSA PCM; the C side (CRealtime/pulse_stream.c) keeps the same contracts
/// as the ALSA loops (frames through a `SampleRing`, atomic counters, nothing calls Swift).
final class PulseStream: @unchecked Sendable {
    /// Where ALSA's pulse plugin would have connected: the PCM's `server` and `device` (nil: the defaults).
    struct Target: Equatable {
        var server: String?
        var device: String?
    }

    let raw: OpaquePointer
    let role: String

    /// Opens a stream with `selection.role` where ALSA would send `selection` to a PulseAudio server; nil when
    /// there is no role, the PCM is not a `type pulse` one, or the server does not take the stream (no server
    /// running, libpulse missing: a warning in the log says why, and the caller opens the PCM through ALSA as
    /// before). Connecting is bounded at 5 s.
    static func openIfRoled(_ selection: DeviceSelection, _ direction: ALSA.Direction, rate: Int, channels: Int,
                            periodMilliseconds: Int, bufferMilliseconds: Int = 0) -> PulseStream? {
        guard let role = selection.role, DeviceSelection.isValidRole(role),
              let target = ALSA.pulseTarget(selection) else { return nil }
        var message = [CChar](repeating: 0, count: 512)
        var stream: OpaquePointer?
        let result: Int32 = withOptionalCString(target.server) { server in
            withOptionalCString(target.device) { device in
                role.withCString { role in
                    let name = direction == .capture ? "Voice message recording" : "Voice message"
                    return name.withCString { name in
                        var request = vnpa_request(
                            direction: direction == .capture ? VNPA_CAPTURE : VNPA_PLAYBACK, server: server,
                            device: device, role: role, stream_name: name,
                            rate: UInt32(clamping: rate), channels: UInt32(clamping: channels),
                            period_ms: UInt32(clamping: periodMilliseconds),
                            buffer_ms: UInt32(clamping: bufferMilliseconds), timeout_ms: 5_000)
                        return vnpa_open(&request, &stream, &message, message.count)
                    }
                }
            }
        }
        guard result == 0, let stream else {
            let text = textOf(message)
            Log.write(.warning, "audio: \(selection) opened through ALSA without its role \"\(role)\": "
                      + "PulseAudio did not take the stream (\(text.isEmpty ? ALSA.errorText(result) : text))")
            return nil
        }
        return PulseStream(raw: stream, role: role)
    }

    private init(raw: OpaquePointer, role: String) {
        self.raw = raw
        self.role = role
    }

    deinit {
        vnpa_close(raw)
    }
}

/// The text of a NUL-terminated C buffer the C side filled.
private func textOf(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

extension ALSA {
    /// The server and device of `selection` when it is a `type pulse` PCM (ALSA's pulse plugin): read from its
    /// configuration text, or from the system's configuration (where `default` becomes `pulse` while a server runs).
    /// nil for any other PCM, or when the configuration cannot be read.
    static func pulseTarget(_ selection: DeviceSelection) -> PulseStream.Target? {
        let (target, _) = capturingMessages { () -> PulseStream.Target? in
            let top: OpaquePointer
            if let text = selection.configuration {
                guard let loaded = try? loadConfiguration(text, for: selection) else { return nil }
                top = loaded
            } else {
                var system: OpaquePointer?
                guard snd_config_update_ref(&system) >= 0, let system else { return nil }
                top = system
            }
            defer {
                if selection.configuration != nil { snd_config_delete(top) } else { snd_config_unref(top) }
            }
            var definition: OpaquePointer?
            guard snd_config_search_definition(top, "pcm", selection.name, &definition) >= 0,
                  let definition else { return nil }
            defer { snd_config_delete(definition) }
            guard string(definition, "type") == "pulse" else { return nil }
            return PulseStream.Target(server: string(definition, "server"), device: string(definition, "device"))
        }
        return target
    }

    /// The string value of `key` in a configuration node, nil when absent or not a string.
    private static func string(_ node: OpaquePointer, _ key: String) -> String? {
        var child: OpaquePointer?
        guard snd_config_search(node, key, &child) == 0, let child else { return nil }
        var value: UnsafePointer<CChar>?
        guard snd_config_get_string(child, &value) == 0, let value else { return nil }
        return String(cString: value)
    }
}
