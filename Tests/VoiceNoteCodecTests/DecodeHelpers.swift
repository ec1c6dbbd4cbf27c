import Foundation
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// Everything a decoder produces for `source`, as interleaved int16.
func decodeAll(_ decoder: any AudioDecoder) throws -> [Int16] {
    var samples: [Int16] = []
    while try decoder.decodeNext({ samples.append(contentsOf: $0.samples) }) {}
    return samples
}

/// Opens a fixture through the content-chosen decoder.
func openFixture(_ kind: Fixtures.Kind, purpose: DecodePurpose = .analysis) throws -> any AudioDecoder {
    try Decoders.open(FileSource(path: Fixtures.path(kind)), purpose: purpose)
}

/// Pearson correlation of two equal-length signals.
func correlation(_ a: [Int16], _ b: [Int16]) -> Double {
    let n = min(a.count, b.count)
    guard n > 1 else { return 0 }
    let x = a.prefix(n).map(Double.init), y = b.prefix(n).map(Double.init)
    let mx = x.reduce(0, +) / Double(n), my = y.reduce(0, +) / Double(n)
    var sxy = 0.0, sxx = 0.0, syy = 0.0
    for i in 0..<n {
        sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) * (x[i] - mx); syy += (y[i] - my) * (y[i] - my)
    }
    return sxy / (sxx * syy).squareRoot()
}

/// The status a throwing call failed with, or nil when it succeeded.
func status(of body: () throws -> Void) -> Status? {
    do { try body(); return nil } catch let error as VoiceNoteError { return error.status } catch { return .internal }
}

/// The bytes of a file.
func bytes(of path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Writes bytes to a new file in a fresh temporary directory and returns its path.
func writeTemporary(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = try Fixtures.temporaryDirectory() + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}
