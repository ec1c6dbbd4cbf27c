import Testing
@testable import VoiceNoteAudio

@Suite struct DeviceListTests {
    /// The system configuration always defines `null` (both directions); every entry has a one-line description.
    @Test func listsTheSystemPCMsWithDescriptions() {
        let devices = AudioDevices.list()
        let null = devices.first { $0.name == "null" }
        #expect(null != nil, "devices: \(devices.map(\.name))")
        #expect(null?.canCapture == true)
        #expect(null?.canPlay == true)
        #expect(null?.description.contains("Discard all samples") == true)
        for device in devices {
            #expect(!device.name.isEmpty)
            #expect(!device.description.isEmpty, "\(device.name) has no description")
            #expect(!device.description.contains("\n"))
            #expect(device.canCapture || device.canPlay)
        }
    }
}
