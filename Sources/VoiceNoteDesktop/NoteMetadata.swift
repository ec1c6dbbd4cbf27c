/// What a desktop's media controls show for a note besides its length: the host's words, since only the host knows
/// who sent it.
public struct NoteMetadata: Sendable, Equatable {
    /// The title (e.g. "Voice message"); empty shows the file's name.
    public var title: String
    /// The sender's name; empty for none.
    public var artist: String
    /// The sender's picture, a `file://` or http(s) URL; empty for none.
    public var artURL: String

    /// Metadata with the host's words.
    public init(title: String = "", artist: String = "", artURL: String = "") {
        self.title = title
        self.artist = artist
        self.artURL = artURL
    }

    /// The longest text kept in a field, in bytes (longer is cut at a character boundary).
    public static let maximumFieldBytes = 4096

    /// This metadata with every field cut to `maximumFieldBytes`.
    var bounded: NoteMetadata {
        func cut(_ text: String) -> String {
            guard text.utf8.count > Self.maximumFieldBytes else { return text }
            var result = ""
            for character in text {
                guard result.utf8.count + character.utf8.count <= Self.maximumFieldBytes else { break }
                result.append(character)
            }
            return result
        }
        return NoteMetadata(title: cut(title), artist: cut(artist), artURL: cut(artURL))
    }
}
