import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// Values in ALSA configuration text: quoted as alsa-lib's parser reads them, and paths the `file` plugin opens as
/// the very files named, whatever characters a directory's name holds.
@Suite struct ALSAConfigurationTextTests {
    /// Directory names that once broke the demo's configuration text or ran a shell (`|` first), and every other
    /// character the parser or the plugin gives a meaning.
    static let hostileNames = ["|touch PWNED;", "my \"notes\"", "back\\slash", "trail\\", "$HOME", "new\nline", "it's",
                               "100%r %c %%", "{ } [ ] # ; , =", "tab\there", "é 𝄞"]

    @Test func quotingEscapesOnlyQuotesAndBackslashes() throws {
        #expect(try ALSAConfigurationText.quoted("plain") == "\"plain\"")
        #expect(try ALSAConfigurationText.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(try ALSAConfigurationText.quoted("new\nline 'x' $y") == "\"new\nline 'x' $y\"")  // newline as it is
        #expect(throws: VoiceNoteError.self) { try ALSAConfigurationText.quoted("a\u{0}b") }
    }

    @Test func pathsStartWithASlashOrDotSlash() throws {
        #expect(try ALSAConfigurationText.inputFile("|cmd") == "\"./|cmd\"")
        #expect(try ALSAConfigurationText.inputFile("$HOME/x") == "\"./$HOME/x\"")
        #expect(try ALSAConfigurationText.inputFile("/abs/50%r") == "\"/abs/50%r\"")  // infile expands nothing
        #expect(try ALSAConfigurationText.outputFile("/abs/50%r") == "\"/abs/50%%r\"")
        #expect(try ALSAConfigurationText.outputFile("%|x") == "\"./%%|x\"")
        #expect(throws: VoiceNoteError.self) { try ALSAConfigurationText.outputFile("") }
    }

    /// A speaker and a microphone through the `file` plugin, in a directory of each hostile name: the speaker
    /// creates exactly the file named (opening it is enough: the plugin opens its output at hw_params), the
    /// microphone opens the file given.
    @Test(arguments: hostileNames) func theFilePluginOpensTheFileNamed(name: String) throws {
        let directory = try Fixtures.temporaryDirectory() + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let output = directory + "/out %r.raw"
        let file = try ALSAConfigurationText.outputFile(output), infile = try ALSAConfigurationText.inputFile(output)
        let speaker = try PlaybackDevice(DeviceSelection(name: "vn_spk", configuration:
            "pcm.vn_spk { type file slave.pcm { type null } file \(file) format raw }"))
        speaker.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out %r.raw"])
        let microphone = try CaptureDevice(DeviceSelection(name: "vn_mic", configuration:
            "pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \(infile) format raw }"))
        microphone.close()
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/PWNED"))
    }
}
