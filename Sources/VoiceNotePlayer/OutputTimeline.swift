/// Which source frames the frames given to the device play, so the frame the device plays now (`framesPlayed`) maps
/// back to the file's time.
///
/// Output frames are counted on the device's scale: the first frame written after a restart is `framesWritten −
/// framesDropped` of the stopped device, and `PlaybackPosition.framesPlayed` counts on the same scale.
struct OutputTimeline {
    struct Segment {
        var outputStart: Int64
        var outputEnd: Int64
        var sourceStart: Int64
        var sourceEnd: Int64
    }
    private var segments: [Segment] = []
    private var head = 0
    /// The output frame the next appended frame will be.
    private(set) var nextOutput: Int64 = 0
    /// The source frame shown before anything was written (the restart position).
    private var restingSource: Int64 = 0

    /// Starts again: the next output frame is `output` and plays source frame `source`.
    mutating func reset(output: Int64, source: Int64) {
        segments.removeAll(keepingCapacity: true)
        head = 0
        nextOutput = output
        restingSource = source
    }

    /// Records `frames` output frames that play source frames `sourceStart..<sourceEnd`.
    mutating func append(frames: Int, sourceStart: Int64, sourceEnd: Int64) {
        guard frames > 0 else { return }
        segments.append(Segment(outputStart: nextOutput, outputEnd: nextOutput + Int64(frames),
                                sourceStart: sourceStart, sourceEnd: sourceEnd))
        nextOutput += Int64(frames)
    }

    /// `sourceFrame(atOutput:)` when a segment written holds `output`; nil when `output` is at or past the end of
    /// what was written.
    mutating func sourceFrameIfWritten(atOutput output: Int64) -> Double? {
        guard let last = segments.last, output < last.outputEnd else { return nil }
        return sourceFrame(atOutput: output)
    }

    /// The source frame heard at output frame `output`, interpolated within its segment; segments wholly before it
    /// are dropped (the output only moves forward).
    mutating func sourceFrame(atOutput output: Int64) -> Double {
        while head < segments.count, segments[head].outputEnd <= output, head + 1 < segments.count { head += 1 }
        if head > 64, head * 2 > segments.count {
            segments.removeFirst(head)
            head = 0
        }
        guard head < segments.count else { return Double(restingSource) }
        let segment = segments[head]
        if output <= segment.outputStart { return Double(segment.sourceStart) }
        if output >= segment.outputEnd { return Double(segment.sourceEnd) }
        let share = Double(output - segment.outputStart) / Double(segment.outputEnd - segment.outputStart)
        return Double(segment.sourceStart) + share * Double(segment.sourceEnd - segment.sourceStart)
    }
}
