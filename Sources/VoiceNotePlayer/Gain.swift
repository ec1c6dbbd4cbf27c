/// The player's volume as a gain on int16 samples, rounded to the nearest value and saturated at full scale. A
/// change ramps linearly over 10 ms of audio, so moving the volume never clicks.
public struct Gain: Sendable {
    /// The volume asked for last; the gain reaches it at the end of the ramp.
    public private(set) var volume: Volume
    /// Frames a change takes to reach the new volume (10 ms).
    public let rampFrames: Int
    /// The gain of the next frame.
    private var current: Float
    /// Added to `current` per frame while a ramp runs.
    private var step: Float = 0
    /// Frames left in the ramp.
    private var rampLeft = 0

    /// Makes a gain at `volume` from the first frame, ramping later changes over 10 ms at `sampleRate`.
    public init(volume: Volume = .full, sampleRate: Int) {
        self.volume = volume
        rampFrames = max(1, sampleRate / 100)
        current = Float(volume.value)
    }

    /// Whether samples pass unchanged: full volume and no ramp running.
    public var isIdentity: Bool { rampLeft == 0 && current == 1 }

    /// Moves to `volume` over the next `rampFrames` frames, from the gain in effect now.
    public mutating func setVolume(_ volume: Volume) {
        self.volume = volume
        let target = Float(volume.value)
        guard target != current else {
            rampLeft = 0
            return
        }
        rampLeft = rampFrames
        step = (target - current) / Float(rampFrames)
    }

    /// Scales interleaved frames in place (a trailing partial frame is scaled at the last frame's gain).
    public mutating func apply(to samples: UnsafeMutableBufferPointer<Int16>, channels: Int) {
        let frames = samples.count / max(channels, 1)
        var index = 0
        for _ in 0..<min(rampLeft, frames) {
            rampLeft -= 1
            current = rampLeft == 0 ? Float(volume.value) : current + step
            for _ in 0..<channels {
                samples[index] = Self.scale(samples[index], by: current)
                index += 1
            }
        }
        if current == 1 { return }
        if current == 0 {
            for position in index..<samples.count { samples[position] = 0 }
            return
        }
        for position in index..<samples.count { samples[position] = Self.scale(samples[position], by: current) }
    }

    /// `sample × gain`, rounded to nearest and saturated to the int16 range.
    @inline(__always)
    static func scale(_ sample: Int16, by gain: Float) -> Int16 {
        let scaled = (Float(sample) * gain).rounded()
        return Int16(min(max(scaled, -32768), 32767))
    }
}
