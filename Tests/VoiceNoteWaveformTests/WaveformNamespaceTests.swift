import Testing
@testable import VoiceNoteWaveform

@Test func namespaceExists() {
    #expect(type(of: Waveform.self) == Waveform.Type.self)
}
