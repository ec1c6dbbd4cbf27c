import CVoiceNote
import Testing
@testable import VoiceNoteABI
import VoiceNoteWaveform

@Suite struct StatusAndVersionTests {
    @Test func versionAgreesWithHeaderMacros() {
        #expect(vn_version_number() == VN_VERSION_MAJOR * 1_000_000 + VN_VERSION_MINOR * 1000 + VN_VERSION_PATCH)
        // VN_VERSION_STRING is made from the three numbers by the preprocessor, which Swift does not import.
        #expect(String(cString: vn_version_string()) == "\(VN_VERSION_MAJOR).\(VN_VERSION_MINOR).\(VN_VERSION_PATCH)")
    }

    @Test func everyStatusHasANameAndDescription() {
        let expected: [(vn_status, String)] = [
            (VN_OK, "VN_OK"), (VN_E_INVALID_ARG, "VN_E_INVALID_ARG"), (VN_E_MISUSE, "VN_E_MISUSE"),
            (VN_E_NOMEM, "VN_E_NOMEM"), (VN_E_IO, "VN_E_IO"), (VN_E_NO_SPACE, "VN_E_NO_SPACE"),
            (VN_E_FORMAT, "VN_E_FORMAT"), (VN_E_DEVICE, "VN_E_DEVICE"), (VN_E_PERMISSION, "VN_E_PERMISSION"),
            (VN_E_NETWORK, "VN_E_NETWORK"), (VN_E_NOT_FOUND, "VN_E_NOT_FOUND"), (VN_E_TOO_LARGE, "VN_E_TOO_LARGE"),
            (VN_E_UNSUPPORTED, "VN_E_UNSUPPORTED"), (VN_E_BUSY, "VN_E_BUSY"), (VN_E_CANCELLED, "VN_E_CANCELLED"),
            (VN_E_INTERNAL, "VN_E_INTERNAL"),
        ]
        for (status, name) in expected {
            #expect(String(cString: vn_status_name(status.rawValue)) == name)
            #expect(!String(cString: vn_strerror(status.rawValue)).isEmpty)
        }
        #expect(String(cString: vn_status_name(-999)) == "VN_E_UNKNOWN")
        #expect(String(cString: vn_strerror(42)) == "unknown status")
    }

    @Test func failuresSetThisThreadsLastErrorMessage() {
        #expect(vn_unsubscribe(987_654_321) == VN_E_MISUSE.rawValue)
        #expect(String(cString: vn_last_error_message()).contains("987654321"))
        #expect(vn_test_source_start(nil, 1, 0) == VN_E_MISUSE.rawValue)
        #expect(String(cString: vn_last_error_message()) == "source is NULL")
    }
}

@Suite struct HeaderConstantTests {
    @Test func waveformLimitsAgreeWithTheCore() {
        #expect(Int(VN_WAVEFORM_MAX_SAMPLES) == Waveform.maximumSampleCount)
        #expect(Int(VN_WAVEFORM_MAX_DECODED) == WaveformEncoding.maximumDecodedCount)
        #expect(Int(VN_WAVEFORM_DEFAULT_SAMPLES) == Waveform.defaultSampleCount)
    }
}
