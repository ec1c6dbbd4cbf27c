#if canImport(Glibc)
import Glibc
#endif

/// An RFC 4122 version-4 UUID in uppercase text (how Stream names its recording copies), from the kernel's
/// random generator (arc4random_buf: glibc 2.36 reads getrandom(2) for it).
public func randomUUIDString() -> String {
    var bytes = [UInt8](repeating: 0, count: 16)
    bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { arc4random_buf(base, 16) } }
    bytes[6] = bytes[6] & 0x0F | 0x40
    bytes[8] = bytes[8] & 0x3F | 0x80
    let hex = bytes.map { byte in
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + text : text
    }
    return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
}

/// `count` random bytes from the kernel's generator in lowercase hex: a fresh part of a file name.
public func randomHex(bytes count: Int = 8) -> String {
    var bytes = [UInt8](repeating: 0, count: max(1, count))
    bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { arc4random_buf(base, $0.count) } }
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
}
