import Testing
import VoiceNoteCore

/// Expects `body` to throw a `VoiceNoteError` with `status`; returns its message.
@discardableResult
func expectError(
    _ status: Status, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> String? {
    let error = #expect(throws: VoiceNoteError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.status == status, sourceLocation: sourceLocation)
    return error?.message
}
