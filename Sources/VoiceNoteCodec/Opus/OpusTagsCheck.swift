import VoiceNoteCore

/// The comment header of an Ogg Opus stream (RFC 7845 §5.2) checked as libopusfile's `opus_tags_parse` checks it,
/// fed piece by piece as its pages arrive, so a header of any size is checked without being kept: the magic, the
/// vendor string, the comment count and every comment must lie within the packet. Nothing in it is needed for
/// info or decoding (voicenote reads no tags), so nothing is kept.
final class OpusTagsCheck {
    private enum Field { case magic, vendorLength, vendor, count, commentLength, comment, rest, invalid }
    private static let magic = Array("OpusTags".utf8)

    private var field = Field.magic
    /// Bytes of the magic matched, or of the little-endian number being read.
    private var fieldBytes = 0
    private var number: UInt32 = 0
    /// Bytes of the vendor string or comment still to pass over.
    private var toSkip = 0
    private var commentsLeft: UInt32 = 0

    /// Takes the next bytes of the packet.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            switch field {
            case .magic:
                guard bytes[index] == Self.magic[fieldBytes] else {
                    field = .invalid
                    return
                }
                index += 1
                fieldBytes += 1
                if fieldBytes == Self.magic.count { startNumber(.vendorLength) }
            case .vendorLength, .count, .commentLength:
                number |= UInt32(bytes[index]) << (8 * UInt32(fieldBytes))
                index += 1
                fieldBytes += 1
                if fieldBytes == 4 { numberRead() }
            case .vendor, .comment:
                let step = min(toSkip, bytes.count - index)
                index += step
                toSkip -= step
                if toSkip == 0 { skipped() }
            case .rest, .invalid:
                return  // anything after the comments (binary data) is allowed, as by libopusfile
            }
        }
    }

    /// The packet ended: `.format` unless everything its fields declare was inside it.
    func finish(_ name: String) throws(VoiceNoteError) {
        guard field == .rest else {
            let what = field == .invalid || field == .magic ? "is not an OpusTags packet" : "declares more than it holds"
            throw VoiceNoteError(.format, "\(name): the Opus comment header \(what)")
        }
    }

    private func startNumber(_ next: Field) {
        field = next
        fieldBytes = 0
        number = 0
    }

    private func numberRead() {
        switch field {
        case .vendorLength:
            skip(Int(number), then: .vendor)
        case .count:
            commentsLeft = number
            if commentsLeft == 0 { field = .rest } else { startNumber(.commentLength) }
        default:
            skip(Int(number), then: .comment)
        }
    }

    private func skip(_ count: Int, then next: Field) {
        field = next
        toSkip = count
        if count == 0 { skipped() }
    }

    /// A vendor string or comment was passed over.
    private func skipped() {
        if field == .vendor {
            startNumber(.count)
            return
        }
        commentsLeft -= 1
        if commentsLeft == 0 { field = .rest } else { startNumber(.commentLength) }
    }
}
