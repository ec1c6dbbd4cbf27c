#if canImport(Glibc)
import Glibc
#endif
import CPNG
import VoiceNoteCore
import VoiceNoteWaveform

/// Pictures of a waveform: terminal blocks, SVG, PNG (through libpng's simplified API).
enum WaveformRendering {
    private static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One Unicode block per column, the levels resampled to the terminal's width (1…`Terminal.maximumColumns`).
    static func bars(_ levels: [Float], columns: Int) -> String {
        let values = Waveform.resample(levels, to: min(max(1, columns), Terminal.maximumColumns))
        // `level > 0` also turns NaN into the empty block: Int(NaN) would trap.
        return String(values.map { level in level > 0 ? blocks[Int((min(level, 1) * 8).rounded())] : blocks[0] })
    }

    /// Stream's bar layout (docs/waveform.md) as an SVG image, bars centred vertically.
    static func svg(_ levels: [Float], width: Double, height: Double) -> String {
        let layout = WaveformBars(width: width, height: height, levels: levels)
        let rects = layout.heights.enumerated().map { index, barHeight in
            let y = (height - Double(barHeight)) / 2
            return "<rect x=\"\(WaveformBars.x(ofBar: index))\" y=\"\(y)\" width=\"1.5\" height=\"\(barHeight)\" rx=\"0.75\"/>"
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" fill="#1f6feb">\(rects.joined())</svg>
            """
    }

    /// Writes text to a file.
    static func write(_ text: String, to path: String) throws(VoiceNoteError) {
        guard let file = fopen(path, "w") else { throw VoiceNoteError.fromErrno(errno, "open \(path)") }
        defer { fclose(file) }
        guard fputs(text + "\n", file) >= 0 else { throw VoiceNoteError.fromErrno(errno, "write \(path)") }
    }

    /// The same bars as an RGBA PNG, transparent background.
    static func png(_ levels: [Float], width: Int, height: Int, to path: String) throws(VoiceNoteError) {
        let layout = WaveformBars(width: Double(width), height: Double(height), levels: levels)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for (index, barHeight) in layout.heights.enumerated() {
            let x0 = Int(WaveformBars.x(ofBar: index).rounded(.down))
            let top = Int(((Double(height) - Double(barHeight)) / 2).rounded(.down))
            let bottom = min(height, top + max(1, Int(Double(barHeight).rounded(.up))))
            for y in max(0, top)..<bottom {
                for x in x0..<min(width, x0 + 2) {
                    let offset = (y * width + x) * 4
                    pixels[offset] = 0x1F; pixels[offset + 1] = 0x6F; pixels[offset + 2] = 0xEB; pixels[offset + 3] = 0xFF
                }
            }
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)  // PNG_FORMAT_RGBA
        let written = pixels.withUnsafeBytes { buffer in
            png_image_write_to_file(&image, path, 0, buffer.baseAddress, Int32(width * 4), nil)
        }
        guard written != 0 else {
            let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            png_image_free(&image)
            throw VoiceNoteError(.io, "writing \(path): \(message)")
        }
    }
}
