extension VoiceNoteError {
    /// Runs code written with untyped `throws` that throws only `VoiceNoteError`s, keeping the typed error;
    /// anything else (a bug) becomes `.internal`.
    public static func rethrowing<T>(_ body: () throws -> T) throws(VoiceNoteError) -> T {
        do { return try body() } catch let error as VoiceNoteError { throw error } catch {
            throw VoiceNoteError(.internal, "unexpected error: \(error)")
        }
    }
}
