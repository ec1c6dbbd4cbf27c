import ArgumentParser
import VoiceNoteAudio

/// `voicenote devices`: the ALSA capture and playback devices.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List capture and playback devices.")

    @Flag(help: "Print as JSON.")
    var json = false

    func run() {
        let devices = AudioDevices.list()
        if json {
            print(JSONText.array(devices.map { device in
                .raw(JSONText.object([("name", .string(device.name)), ("description", .string(device.description)),
                                      ("capture", .bool(device.canCapture)), ("playback", .bool(device.canPlay))]))
            }).text)
        } else {
            for device in devices {
                let kinds = [device.canCapture ? "capture" : nil, device.canPlay ? "playback" : nil].compactMap { $0 }
                print("\(device.name)\t\(kinds.joined(separator: "+"))\t\(device.description)")
            }
        }
    }
}
