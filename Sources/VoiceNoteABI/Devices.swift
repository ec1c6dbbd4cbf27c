import CVoiceNote
import VoiceNoteAudio
import VoiceNoteCore

@c @implementation public func vn_devices_enumerate(_ callback: vn_device_fn?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let callback = try required(callback, "callback")
        for device in AudioDevices.list() {
            device.name.withCString { name in
                device.description.withCString { description in
                    callback(userData, name, description, device.canCapture ? 1 : 0, device.canPlay ? 1 : 0)
                }
            }
        }
    }
}
