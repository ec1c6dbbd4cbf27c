/// Where the stretcher's input came from: its frames in order, as runs of consecutive source frames (one run
/// while nothing is skipped, a new one after each shortened pause). Only the runs not yet heard are kept.
struct SourceMap {
    private struct Run {
        /// The stretcher input frame of the run's first frame.
        var input: Int64
        /// The source frame of the run's first frame.
        var source: Int64
        var frames: Int64
    }

    private var runs: [Run] = []
    /// Where the map starts in the source: the answer while it is empty.
    private var origin: Int64
    /// Input frames mapped so far.
    private(set) var inputFrames: Int64 = 0

    init(origin: Int64) {
        self.origin = origin
    }

    /// Maps the next `frames` input frames to source frames from `source` on.
    mutating func append(source: Int64, frames: Int) {
        guard frames > 0 else { return }
        if var last = runs.last, last.source + last.frames == source {
            last.frames += Int64(frames)
            runs[runs.count - 1] = last
        } else {
            runs.append(Run(input: inputFrames, source: source, frames: Int64(frames)))
        }
        inputFrames += Int64(frames)
    }

    /// The source frame of input frame `input`; past the end, one past the last mapped source frame.
    func sourceFrame(atInput input: Int64) -> Int64 {
        for run in runs where input < run.input + run.frames {
            return run.source + max(0, input - run.input)
        }
        guard let last = runs.last else { return origin }
        return last.source + last.frames
    }

    /// One past the source frame of the input frame before `input`: where a piece of output ending there ends.
    func sourceEnd(atInput input: Int64) -> Int64 {
        input > 0 ? sourceFrame(atInput: input - 1) + 1 : sourceFrame(atInput: 0)
    }

    /// Forgets the runs wholly before input frame `input`, keeping the last one for the end.
    mutating func discard(before input: Int64) {
        var drop = 0
        while drop < runs.count - 1 && runs[drop].input + runs[drop].frames <= input { drop += 1 }
        if drop > 0 { runs.removeFirst(drop) }
    }

    /// Empties the map to start again at `origin` (a seek).
    mutating func reset(origin: Int64) {
        runs.removeAll(keepingCapacity: true)
        self.origin = origin
        inputFrames = 0
    }
}
