import CVoiceNote
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteWaveform

/// The object behind a `vn_waveform_batch *`: the batch, and the copies the last result's pointers point into.
final class WaveformBatchHandle: @unchecked Sendable {
    let batch: WaveformBatch
    private let monitor = Monitor()
    /// Freed at the next `vn_waveform_batch_next` and at the destroy; under `monitor`.
    private var lastResult: CEventMemory?

    init(_ batch: WaveformBatch) {
        self.batch = batch
    }

    deinit {
        batch.close()
        lastResult?.free()
    }

    /// Frees the previous result's copies and returns the memory the next one's go into.
    func freshMemory() -> CEventMemory {
        monitor.locked { () -> CEventMemory in
            lastResult?.free()
            let fresh = CEventMemory()
            lastResult = fresh
            return fresh
        }
    }
}

@c @implementation public func vn_waveform_batch_create(
    _ samples: Int, _ jobs: Int32, _ http: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        guard (0...256).contains(jobs) else { throw VoiceNoteError(.invalidArgument, "jobs must be 0…256, not \(jobs)") }
        let settings = try HTTPOptionsHandle.value(of: http, or: HTTPOptions())
        let batch = try WaveformBatch(samples: samples, jobs: jobs == 0 ? nil : Int(jobs)) { (location) throws(VoiceNoteError) in
            try RemoteMedia.open(location, options: { settings })
        }
        out.pointee = Handles.make(WaveformBatchHandle(batch))
    }
}

@c @implementation public func vn_waveform_batch_add(_ batch: OpaquePointer?, _ location: UnsafePointer<CChar>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(batch, as: WaveformBatchHandle.self, "batch")
        try handle.batch.add(try utf8String(location, "location"))
    }
}

@c @implementation public func vn_waveform_batch_end_input(_ batch: OpaquePointer?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try Handles.get(batch, as: WaveformBatchHandle.self, "batch").batch.endInput()
    }
}

@c @implementation public func vn_waveform_batch_next(
    _ batch: OpaquePointer?, _ timeoutMs: Int32, _ result: UnsafeMutablePointer<vn_waveform_result>?
) -> Int32 {
    var answer: Int32 = 0
    let status = abiCall { () throws(VoiceNoteError) in
        let handle = try Handles.get(batch, as: WaveformBatchHandle.self, "batch")
        let result = try required(result, "result")
        guard result.pointee.size >= MemoryLayout<vn_waveform_result>.size else {
            throw VoiceNoteError(.invalidArgument, "result->size is \(result.pointee.size); set it to sizeof(vn_waveform_result)")
        }
        switch try handle.batch.next(timeout: timeoutMs < 0 ? nil : Double(timeoutMs) / 1000) {
        case .end:
            answer = 0
        case .timedOut:
            throw VoiceNoteError(.busy, "no result within \(timeoutMs) ms")
        case .item(let item):
            result.pointee = filled(item, handle.freshMemory())
            answer = 1
        }
    }
    return status == Status.ok.rawValue ? answer : status
}

@c @implementation public func vn_waveform_batch_destroy(_ batch: OpaquePointer?) {
    _ = Handles.remove(batch, as: WaveformBatchHandle.self)
}

/// The C result for `item`, its text and values copied into `memory`.
private func filled(_ item: WaveformBatch.Item, _ memory: CEventMemory) -> vn_waveform_result {
    var result = vn_waveform_result()
    result.size = MemoryLayout<vn_waveform_result>.size
    result.index = item.index
    result.location = memory.string(item.location)
    switch item.outcome {
    case .success(let analysis):
        result.status = Status.ok.rawValue
        result.message = memory.string("")
        result.duration_s = analysis.duration
        var count = analysis.values.count
        result.values = memory.values(analysis.values, count: &count)
        result.count = count
        result.loudness = vn_loudness(analysis.loudness)
    case .failure(let error):
        result.status = error.status.rawValue
        result.message = memory.string(error.message)
    }
    return result
}
