import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

extension WaveformAnalysis {
    /// The shortest range worth a thread of its own: below it, opening a decoder and its pre-roll cost more than
    /// the range saves.
    public static let minimumRangeSeconds = 10.0

    /// The waveform of one long file on several threads: the file split into at most `ranges` ranges
    /// (`Decoders.ranges`: Opus at pages, MP3, AAC, FLAC and PCM anywhere; each at least `minimumRangeSeconds`),
    /// decoded in parallel — the calling thread takes the first — into buckets on one grid whose sums are added.
    ///
    /// The answer is `analyse(_:samples:)`'s, bucket for bucket, except in the buckets holding a cut, where the
    /// restarted decoder's first frames after its pre-roll may differ from the one-pass decoder's by a little
    /// (under 0.001 in the tests, for Opus, AAC and MP3). Whenever a range cannot line up exactly (a packet
    /// skipped as damaged, a length that lied, a range that failed to open), the whole file is analysed in one
    /// pass instead, so the result never depends on the split.
    /// - Parameters:
    ///   - source: the file, read by the calling thread (the first range).
    ///   - samples: values wanted.
    ///   - ranges: the most threads to use, 1…256; 1 is `analyse(source, samples:)`.
    ///   - loudness: whether to measure the loudness too (each range its own meter, their gating blocks taken together).
    ///   - open: gives another source over the same bytes, positioned anywhere; called once per further range, on
    ///     that range's thread (sources are not shared between threads).
    ///   - cancellation: once set, every range stops at its next packet and this throws `.cancelled`.
    /// - Throws: what `analyse(_:samples:)` throws for the file.
    public static func analyse(_ source: any ByteSource, samples: Int, ranges: Int, loudness: Bool = true,
                               cancellation: CancellationFlag? = nil,
                               reopening open: @escaping @Sendable () throws(VoiceNoteError) -> any ByteSource) throws(VoiceNoteError) -> Result {
        guard (1...256).contains(ranges) else {
            throw VoiceNoteError(.invalidArgument, "ranges must be 1…256, not \(ranges)")
        }
        guard ranges >= 2, samples > 0, samples <= Waveform.maximumSampleCount,
              let plan = try Decoders.ranges(of: source, count: ranges, minimumSeconds: minimumRangeSeconds) else {
            return try analyse(source, samples: samples, loudness: loudness, cancellation: cancellation)
        }
        guard let (values, measured) = RangeWork.run(plan, first: source, open: open, samples: samples, loudness: loudness,
                                                     cancellation: cancellation) else {
            try cancellation?.check("the waveform of \(source.name)")
            Log.write(.debug, "waveform of \(source.name): a range did not line up; analysed in one pass")
            return try analyse(source, samples: samples, loudness: loudness, cancellation: cancellation)
        }
        Log.write(.debug, "waveform of \(source.name): \(plan.count) ranges decoded in parallel")
        return Result(values: values, duration: Double(plan.frameCount) / Double(plan.outputRate), ranges: plan.count,
                      loudness: measured)
    }
}

/// The ranges of one analysis: one thread per range after the first, their buckets collected, then combined.
private final class RangeWork: @unchecked Sendable {
    private let plan: DecodingRanges
    private let samples: Int
    private let measuresLoudness: Bool
    private let cancellation: CancellationFlag?
    private let monitor = Monitor()
    /// Each range's buckets and loudness meter once it delivered exactly its frames; nil for one that did not (or
    /// has not finished).
    private var parts: [(WaveformBuckets, LoudnessMeter?)?]

    private init(plan: DecodingRanges, samples: Int, loudness: Bool, cancellation: CancellationFlag?) {
        self.plan = plan
        self.samples = samples
        measuresLoudness = loudness
        self.cancellation = cancellation
        parts = Array(repeating: nil, count: plan.count)
    }

    /// The combined values and loudness (the ranges' gating blocks taken together), or nil when any range did not
    /// line up or was cancelled (the caller analyses in one pass, or throws `.cancelled`).
    static func run(_ plan: DecodingRanges, first: any ByteSource,
                    open: @escaping @Sendable () throws(VoiceNoteError) -> any ByteSource, samples: Int, loudness: Bool,
                    cancellation: CancellationFlag?) -> ([Float], Loudness?)? {
        let work = RangeWork(plan: plan, samples: samples, loudness: loudness, cancellation: cancellation)
        var threads: [LibraryThread] = []
        for index in 1..<plan.count {
            guard let thread = try? LibraryThread(name: "vn-waveform-rng", {
                work.file(index, (try? open()).flatMap { work.analyse(index, source: $0) })
            }) else { break }
            threads.append(thread)
        }
        work.file(0, work.analyse(0, source: first))
        for thread in threads { thread.join() }
        guard threads.count == plan.count - 1 else { return nil }
        let parts = work.monitor.locked { work.parts.compactMap { $0 } }
        guard parts.count == plan.count else { return nil }
        guard let values = WaveformBuckets.combined(parts.map(\.0)) else { return nil }
        let meters = parts.compactMap(\.1)
        return (values, loudness && meters.count == parts.count ? LoudnessMeter.combined(meters) : nil)
    }

    private func file(_ index: Int, _ part: (WaveformBuckets, LoudnessMeter?)?) {
        monitor.locked { parts[index] = part }
    }

    /// Range `index` from `source`: its decoder's frames before the cut dropped, the range's frames bucketed; nil
    /// when they are not exactly the range's (the last range must also end exactly at N).
    private func analyse(_ index: Int, source: any ByteSource) -> (WaveformBuckets, LoudnessMeter?)? {
        let low = plan.cuts[index]
        let high = plan.cuts[index + 1]
        let isLast = index == plan.count - 1
        guard let (decoder, firstFrame) = try? plan.decoder(for: index, source: source),
              decoder.outputRate == plan.outputRate, decoder.outputChannels == plan.channels,
              var buckets = try? WaveformBuckets(frameCount: Int(plan.frameCount), channels: plan.channels,
                                                 samples: samples, startingAt: Int(low)) else { return nil }
        let meter = measuresLoudness
            ? try? LoudnessMeter(sampleRate: plan.outputRate, channels: plan.channels, order: decoder.channelOrder) : nil
        guard meter != nil || !measuresLoudness else { return nil }
        let channels = plan.channels
        var position = firstFrame
        do {
            while position < high || isLast, cancellation?.isCancelled != true, try decoder.decodeNext({ chunk in
                let start = position
                position += Int64(chunk.frames)
                let from = max(low, start)
                let to = min(high, position)
                guard to > from else { return }
                let part = UnsafeBufferPointer(rebasing: chunk.samples[Int(from - start) * channels..<Int(to - start) * channels])
                buckets.append(part)
                meter?.append(part)
            }) {}
        } catch {
            return nil
        }
        guard !decoder.skippedDamagedPacket, Int64(buckets.framesReceived) == high - low, !isLast || position == high else {
            return nil
        }
        return (buckets, meter)
    }
}
