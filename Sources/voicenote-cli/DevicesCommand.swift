import ArgumentParser
import VoiceNoteAudio
import VoiceNoteJSON

/// `voicenote devices`: the ALSA capture and playback devices.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List capture and playback devices.")

    @Flag(help: "Print as JSON.")
    var json = false

    func run() {
        let devices = AudioDevices.list()
        if json {
            print(JSONValue.array(devices.map { device in
                .members([("name", .string(device.name)), ("description", .string(device.description)),
                          ("capture", .bool(device.canCapture)), ("playback", .bool(device.canPlay))])
            }).line)
        } else {
            for device in devices {
                let kinds = [device.canCapture ? "capture" : nil, device.canPlay ? "playback" : nil].compactMap { $0 }
                print("\(device.name)\t\(kinds.joined(separator: "+"))\t\(device.description)")
            }
        }
    }
}
