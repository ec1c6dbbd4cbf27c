/// Waveforms of voice messages (SPEC §5): levels, display resampling, wire encodings.
public enum Waveform {}
