/// A piece of the pipeline's output: interleaved int16 ready for the device, and the part of the note it plays.
/// Valid only during the call that receives it.
public struct PlaybackChunk {
    /// Interleaved samples, `frames × channels` of them.
    public let samples: UnsafeBufferPointer<Int16>
    /// Channels per frame.
    public let channels: Int
    /// The source frame (in the file's time) of the first frame.
    public let sourceStartFrame: Int64
    /// One past the source frame of the last frame. Across chunks, `sourceEndFrame` ≤ the next chunk's
    /// `sourceStartFrame` (equal unless a pause was shortened between them): the mapping never goes back.
    public let sourceEndFrame: Int64

    /// Frames in the chunk.
    public var frames: Int { samples.count / channels }

    /// The source frame heard at output frame `frame` of the chunk (0…`frames`), interpolated linearly: exact at
    /// 1.0, within the stretcher's count (31 ms) while stretching.
    public func sourceFrame(atOutputFrame frame: Int) -> Double {
        guard frames > 0 else { return Double(sourceStartFrame) }
        let share = Double(min(max(frame, 0), frames)) / Double(frames)
        return Double(sourceStartFrame) + share * Double(sourceEndFrame - sourceStartFrame)
    }
}
