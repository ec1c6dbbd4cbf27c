import Synchronization
import Testing
@testable import VoiceNoteAudio
import VoiceNoteCore

@Suite struct SampleRingTests {
    @Test func wrapsAroundAndKeepsOrderAcrossThreads() throws {
        let ring = try SampleRing(minimumSamples: 1000)
        #expect(ring.capacity == 1024)
        let total = 500_000
        let producer = try LibraryThread(name: "ring-producer") {
            var next = 0
            var chunk = [Int16](repeating: 0, count: 333)
            while next < total {
                let count = min(chunk.count, total - next)
                for i in 0..<count { chunk[i] = Int16(truncatingIfNeeded: next + i) }
                var written = 0
                while written < count {
                    written += chunk.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[written..<count])) }
                }
                next += count
            }
        }
        var received = 0
        var mismatches = 0
        var buffer = [Int16](repeating: 0, count: 256)
        let deadline = monotonicNanoseconds() + 20_000_000_000
        while received < total && monotonicNanoseconds() < deadline {
            let count = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            if count == 0 { _ = ring.wait(timeoutMilliseconds: 100); continue }
            for i in 0..<count where buffer[i] != Int16(truncatingIfNeeded: received + i) { mismatches += 1 }
            received += count
        }
        producer.join()
        #expect(received == total)
        #expect(mismatches == 0)
    }

    @Test func fullRingAcceptsOnlyWhatFitsAndWaitTimesOut() throws {
        let ring = try SampleRing(minimumSamples: 8)
        let data = [Int16](repeating: 7, count: 20)
        #expect(data.withUnsafeBufferPointer { ring.write($0) } == 8)
        #expect(ring.available == 8)
        var out = [Int16](repeating: 0, count: 20)
        #expect(out.withUnsafeMutableBufferPointer { ring.read(into: $0) } == 8)
        #expect(ring.wait(timeoutMilliseconds: 0))  // the write's wake-up is still pending
        #expect(!ring.wait(timeoutMilliseconds: 20))
        ring.notify()
        #expect(ring.wait(timeoutMilliseconds: 1000))
    }
}
