import CALSA
import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// Devices that cannot be opened fail with the status docs/errors.md gives and a message naming the device and ALSA's reason,
/// and ALSA prints nothing on stderr. Serialized: each test redirects file descriptor 2.
@Suite(.serialized) struct DeviceErrorTests {
    /// Opens `selection` with stderr captured; returns the error and what ALSA printed.
    private func failure(_ selection: DeviceSelection, preferredRate: Int = 48_000,
                         channels: Int = 1) throws -> (VoiceNoteError?, String) {
        let (error, printed) = try capturingStandardError { () -> VoiceNoteError? in
            do throws(VoiceNoteError) {
                let device = try CaptureDevice(selection, preferredRate: preferredRate, channels: channels)
                device.close()
                return nil
            } catch {
                return error
            }
        }
        let alsaLines = printed.split(separator: "\n").filter { $0.contains("ALSA lib") }
        return (error, alsaLines.joined(separator: "\n"))
    }

    @Test func unknownNameInConfigurationTextIsADeviceError() throws {
        let config = fileMicrophone("vn_mic", infile: "/dev/zero")
        let (error, printed) = try failure(DeviceSelection(name: "vn_other", configuration: config))
        #expect(error?.status == .device)
        #expect(error?.message.contains("\"vn_other\"") == true)
        #expect(error?.message.contains("No such file or directory") == true)   // snd_strerror(-ENOENT)
        #expect(error?.message.contains("Unknown PCM vn_other") == true)         // ALSA's own message, kept
        #expect(printed.isEmpty, "ALSA printed: \(printed)")
    }

    @Test func unknownSystemNameIsADeviceError() throws {
        let (error, printed) = try failure(DeviceSelection(name: "vn_no_such_device"))
        #expect(error?.status == .device)
        #expect(error?.message.contains("\"vn_no_such_device\"") == true)
        #expect(error?.message.contains("No such file or directory") == true)
        #expect(printed.isEmpty, "ALSA printed: \(printed)")
    }

    @Test func missingInputFileIsADeviceError() throws {
        let path = try Fixtures.temporaryDirectory() + "/missing.raw"
        let (error, printed) = try failure(DeviceSelection(name: "vn_mic", configuration: fileMicrophone("vn_mic", infile: path)))
        #expect(error?.status == .device)
        #expect(error?.message.contains(path) == true)
        #expect(printed.isEmpty, "ALSA printed: \(printed)")
    }

    @Test func unreachablePulseServerIsADeviceError() throws {
        let config = "pcm.vn_rt { type pulse server \"unix:/nonexistent/vn/native\" device \"vn_null.monitor\" }"
        let (error, printed) = try failure(DeviceSelection(name: "vn_rt", configuration: config))
        #expect(error?.status == .device)
        #expect(error?.message.contains("Connection refused") == true)
        #expect(printed.isEmpty, "ALSA printed: \(printed)")
    }

    @Test func configurationTextThatDoesNotParseIsAnInvalidArgument() throws {
        let (error, printed) = try failure(DeviceSelection(name: "vn_mic", configuration: "pcm.vn_mic { type file "))
        #expect(error?.status == .invalidArgument)
        #expect(printed.isEmpty, "ALSA printed: \(printed)")
    }

    @Test func outOfRangeArgumentsAreInvalid() throws {
        let selection = DeviceSelection(name: "vn_mic", configuration: fileMicrophone("vn_mic", infile: "/dev/zero"))
        #expect(try failure(selection, preferredRate: 0).0?.status == .invalidArgument)
        #expect(try failure(selection, channels: 0).0?.status == .invalidArgument)
    }

    /// Opens `selection` for playback with stderr captured; returns the error and what ALSA printed.
    private func playbackFailure(_ selection: DeviceSelection, rate: Int = 48_000,
                                 channels: Int = 1) throws -> (VoiceNoteError?, String) {
        let (error, printed) = try capturingStandardError { () -> VoiceNoteError? in
            do throws(VoiceNoteError) {
                let device = try PlaybackDevice(selection, rate: rate, channels: channels)
                device.close()
                return nil
            } catch {
                return error
            }
        }
        return (error, printed.split(separator: "\n").filter { $0.contains("ALSA lib") }.joined(separator: "\n"))
    }

    @Test func missingPlaybackDeviceIsADeviceError() throws {
        for selection in [DeviceSelection(name: "vn_no_such_speaker"),
                          DeviceSelection(name: "vn_other", configuration: fileSpeaker("vn_spk", outfile: "/dev/null"))] {
            let (error, printed) = try playbackFailure(selection)
            #expect(error?.status == .device)
            #expect(error?.message.hasPrefix("cannot open playback device \"\(selection.name)\"") == true,
                    "\(error?.message ?? "no error")")
            #expect(error?.message.contains("No such file or directory") == true)     // snd_strerror(-ENOENT)
            #expect(error?.message.contains("Unknown PCM \(selection.name)") == true)  // ALSA's own message, kept
            #expect(printed.isEmpty, "ALSA printed: \(printed)")
        }
    }

    @Test func badPlaybackArgumentsAreInvalid() throws {
        let selection = DeviceSelection(name: "vn_spk", configuration: fileSpeaker("vn_spk", outfile: "/dev/null"))
        #expect(try playbackFailure(selection, rate: 0).0?.status == .invalidArgument)
        #expect(try playbackFailure(selection, channels: 33).0?.status == .invalidArgument)
        let unparsed = DeviceSelection(name: "vn_spk", configuration: "pcm.vn_spk { type file ")
        #expect(try playbackFailure(unparsed).0?.status == .invalidArgument)
    }

    /// The control: on this same thread, after our calls, ALSA without our handler does print — so the capture of
    /// stderr works and our per-thread handler was restored rather than left installed.
    @Test func alsaPrintsWithoutOurHandler() throws {
        _ = try failure(DeviceSelection(name: "vn_no_such_device"))
        let (_, printed) = try capturingStandardError(expected: "vn_no_such_device_either") { () -> Int32 in
            var pcm: OpaquePointer?
            let result = snd_pcm_open(&pcm, "vn_no_such_device_either", SND_PCM_STREAM_CAPTURE, 0)
            if let pcm { snd_pcm_close(pcm) }
            return result
        }
        #expect(printed.contains("ALSA lib") && printed.contains("vn_no_such_device_either"))
    }
}
