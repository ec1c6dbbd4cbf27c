"""Audio files made at test time: espeak-ng speech → sox (48 kHz mono WAV) → opusenc / ffmpeg, plus the bad inputs
docs/errors.md names. Every tool runs with a bounded timeout; a missing tool skips the tests that need the files.

Also: the waveform algorithm (docs/waveform.md) in plain Python (the reference the binding is checked against), the CLI and the C
sample (``bindings/c/waveform.c``) as external programs.
"""

from __future__ import annotations

import math
import os
import shutil
import struct
import subprocess
import sys
import wave
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

from helpers import PACKAGE_ROOT, TIMEOUT

#: The checkout's root, when the tests run from one.
REPO_ROOT = PACKAGE_ROOT.parents[1]

SPEECH = "Hello, this is a voice message for the voicenote tests. One, two, three, four."

#: Encoded formats of the same speech: name → (file name, command after the input, as a list).
FORMATS = ["opus", "aac", "mp3", "wav", "flac", "vorbis"]

#: The values of the 3-frame WAV (s16, mono).
THREE_FRAMES = [16384, -32767, 1000]


def run(command: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    """Runs a tool with a bounded timeout; fails the test with its stderr when it fails."""
    result = subprocess.run(list(command), capture_output=True, timeout=TIMEOUT, **kwargs)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 0, f"{command[0]} failed ({result.returncode}): {stderr}"
    return result


@dataclass
class Media:
    """The files of one test session."""

    folder: Path
    #: Speech in each format of FORMATS.
    files: Dict[str, Path] = field(default_factory=dict)
    #: The reference 48 kHz mono s16 WAV and its length in seconds.
    wav_seconds: float = 0.0
    empty: Optional[Path] = None
    text_as_ogg: Optional[Path] = None
    wav_as_ogg: Optional[Path] = None
    three_frames: Optional[Path] = None
    directory: Optional[Path] = None
    missing: Optional[Path] = None


def make_media(folder: Path) -> Media:
    """Makes every file; skips when a tool is missing."""
    for tool in ("espeak-ng", "sox", "opusenc", "ffmpeg"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (needed to make the test audio)")
    media = Media(folder)
    spoken = folder / "spoken.wav"
    run(["espeak-ng", "-w", str(spoken), SPEECH])
    wav = folder / "speech.wav"
    # -G: guard against clipping in the rate conversion; -D: no dither, so the WAV is deterministic.
    run(["sox", "-G", str(spoken), "-D", "-r", "48000", "-c", "1", "-b", "16", str(wav)])
    with wave.open(str(wav)) as reader:
        media.wav_seconds = reader.getnframes() / reader.getframerate()
    media.files["wav"] = wav
    media.files["opus"] = folder / "speech.opus"
    run(["opusenc", "--quiet", str(wav), str(media.files["opus"])])
    ffmpeg = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", str(wav)]
    media.files["aac"] = folder / "speech.aac"
    run(ffmpeg + ["-c:a", "aac", "-f", "adts", str(media.files["aac"])])
    media.files["mp3"] = folder / "speech.mp3"
    run(ffmpeg + ["-c:a", "libmp3lame", "-write_xing", "0", str(media.files["mp3"])])
    media.files["flac"] = folder / "speech.flac"
    run(ffmpeg + ["-c:a", "flac", str(media.files["flac"])])
    media.files["vorbis"] = folder / "speech.ogg"
    run(ffmpeg + ["-c:a", "libvorbis", str(media.files["vorbis"])])

    media.empty = folder / "empty.ogg"
    media.empty.write_bytes(b"")
    media.text_as_ogg = folder / "text.ogg"
    media.text_as_ogg.write_text("This is not audio at all, only some text in a file named .ogg.\n" * 20)
    media.wav_as_ogg = folder / "wav-named.ogg"
    shutil.copyfile(wav, media.wav_as_ogg)
    raw = folder / "three.raw"
    raw.write_bytes(array("h", THREE_FRAMES).tobytes() if sys.byteorder == "little"
                    else _swapped(array("h", THREE_FRAMES)).tobytes())
    media.three_frames = folder / "three.wav"
    run(["sox", "-t", "raw", "-r", "8000", "-e", "signed", "-b", "16", "-c", "1", str(raw), str(media.three_frames)])
    media.directory = folder / "a-directory.ogg"
    media.directory.mkdir()
    media.missing = folder / "no-such-file.ogg"
    return media


def _swapped(values: array) -> array:
    copy = array(values.typecode, values)
    copy.byteswap()
    return copy


def write_tone(path: Path, seconds: float, frequency: float = 440.0, rate: int = 48000) -> Path:
    """Writes a tone (440 Hz unless told) at a quarter of full scale as 16-bit mono WAV (48 kHz unless told), and
    returns ``path``."""
    samples = array("h", (int(8000 * math.sin(2 * math.pi * frequency * i / rate))
                          for i in range(int(seconds * rate))))
    with wave.open(str(path), "wb") as output:
        output.setnchannels(1)
        output.setsampwidth(2)
        output.setframerate(rate)
        output.writeframes(samples.tobytes())
    return path


#: The tones of :func:`make_tones`, in Hz: three notes told apart by their pitch.
TONE_FREQUENCIES = (440.0, 660.0, 880.0)
#: Their length in seconds (under the 5 s before the end at which a queue asks ahead, so it asks at once).
TONE_SECONDS = 2.0


def make_tones(folder: Path) -> List[Path]:
    """Three short Ogg Opus notes (``tone-440.opus``, ``tone-660.opus``, ``tone-880.opus``: TONE_SECONDS of a
    steady tone each, at a quarter of full scale, never silent for more than a sample); skips without opusenc."""
    if shutil.which("opusenc") is None:
        pytest.skip("opusenc is not installed (needed to make the test tones)")
    folder.mkdir(parents=True, exist_ok=True)
    notes = []
    for frequency in TONE_FREQUENCIES:
        wav = write_tone(folder / f"tone-{int(frequency)}.wav", TONE_SECONDS, frequency)
        note = folder / f"tone-{int(frequency)}.opus"
        run(["opusenc", "--quiet", str(wav), str(note)])
        notes.append(note)
    return notes


def dominant_frequency(samples: Sequence[int], rate: int = 48000) -> float:
    """The frequency of a steady tone, from its zero crossings (two per period)."""
    crossings = sum(1 for a, b in zip(samples, samples[1:]) if (a < 0) != (b < 0))
    return crossings / 2 / (len(samples) / rate)


def longest_quiet_run(samples: Sequence[int], loud: int = 1000, quiet: int = 100) -> int:
    """The longest run of samples with ``|x| <= quiet`` between the first and the last with ``|x| > loud`` (0 when
    nothing is loud)."""
    indices = [i for i, value in enumerate(samples) if abs(value) > loud]
    if not indices:
        return 0
    longest = run_length = 0
    for value in samples[indices[0]:indices[-1] + 1]:
        run_length = run_length + 1 if abs(value) <= quiet else 0
        longest = max(longest, run_length)
    return longest


#: The longest silence allowed between two items played back to back: 50 ms at 48 kHz.
MAX_GAP_FRAMES = 48000 // 20


def assert_tones_in_order(output: Path, frequencies: Sequence[float], rate: int = 48000) -> None:
    """A file speaker's raw mono S16 ``output`` holds one tone of :func:`make_tones` per frequency, in this order,
    each TONE_SECONDS long (±2% in all), with no silence longer than MAX_GAP_FRAMES between the first and the last
    loud sample."""
    played = array("h", output.read_bytes())
    if sys.byteorder == "big":
        played.byteswap()
    tone = int(TONE_SECONDS * rate)
    assert len(played) == pytest.approx(len(frequencies) * tone, rel=0.02)
    assert longest_quiet_run(played) <= MAX_GAP_FRAMES
    for index, frequency in enumerate(frequencies):
        middle = index * tone + tone // 4
        assert dominant_frequency(played[middle:middle + tone // 2], rate) == pytest.approx(frequency, rel=0.03), \
            f"tone {index} of {len(frequencies)}"


def read_wav(path: Path) -> "tuple[array, int]":
    """The s16 samples (interleaved) and channel count of a 16-bit WAV."""
    with wave.open(str(path)) as reader:
        assert reader.getsampwidth() == 2
        samples = array("h")
        samples.frombytes(reader.readframes(reader.getnframes()))
        if sys.byteorder == "big":
            samples.byteswap()
        return samples, reader.getnchannels()


# --- the waveform algorithm (docs/waveform.md) in plain Python ------------------------------------------------------------------------------------


def level_db(sample: float, full_scale: float) -> float:
    """``20·log10(|x| / full_scale)`` clipped to −50…0 (silence −50)."""
    magnitude = abs(sample) / full_scale
    if magnitude <= 0:
        return -50.0
    return min(0.0, max(-50.0, 20.0 * math.log10(magnitude)))


def reference_waveform(samples: Sequence[float], channels: int, n: int, full_scale: float) -> List[float]:
    """The waveform algorithm's steps 2–5 (docs/waveform.md) for interleaved PCM: bucket i = frames [⌊i·N/n⌋, ⌊(i+1)·N/n⌋), mean of the clipped dB
    of every sample of every channel, (v + 50) / 50; empty buckets 0."""
    frames = len(samples) // channels
    values = []
    for i in range(n):
        start, end = i * frames // n, (i + 1) * frames // n
        if start == end:
            values.append(0.0)
            continue
        chunk = samples[start * channels:end * channels]
        mean = sum(level_db(sample, full_scale) for sample in chunk) / len(chunk)
        values.append((mean + 50.0) / 50.0)
    return values


# --- the CLI and the C sample -------------------------------------------------------------------------------------


def find_cli() -> Optional[Path]:
    """``$VOICENOTE_CLI``, else ``build/bin/voicenote`` in the checkout, else None."""
    configured = os.environ.get("VOICENOTE_CLI")
    if configured:
        path = Path(configured)
        assert path.exists(), f"$VOICENOTE_CLI={configured} does not exist"
        return path
    default = REPO_ROOT / "build" / "bin" / "voicenote"
    return default if default.exists() else None


def loaded_library_path() -> Path:
    """The file of the libvoicenote this process loaded (from /proc/self/maps: whatever way _lib found it)."""
    import voicenote  # noqa: F401  (loads it)

    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(None, 5)
            if len(parts) == 6 and "libvoicenote" in os.path.basename(parts[5].strip()):
                return Path(parts[5].strip())
    pytest.fail("libvoicenote is not mapped into this process")


def is_tsan_build(library: Path) -> bool:
    """Whether the library was built with ``--sanitize=thread`` (it then needs the TSan runtime)."""
    return b"__tsan_init" in library.read_bytes()


def _toolchain_clang() -> Optional[Path]:
    """The Swift toolchain's clang, which can link the TSan runtime: ``$TSAN_CC``, next to ``swift`` on PATH, or
    /opt/swift/usr/bin/clang."""
    configured = os.environ.get("TSAN_CC")
    candidates = [Path(configured)] if configured else []
    swift = shutil.which("swift")
    if swift:
        candidates.append(Path(swift).resolve().parent / "clang")
    candidates.append(Path("/opt/swift/usr/bin/clang"))
    return next((path for path in candidates if path.exists()), None)


@dataclass
class CProgram:
    """A compiled C sample and how to run it."""

    path: Path
    env: Dict[str, str]

    def run(self, *arguments: str) -> subprocess.CompletedProcess:
        return run([str(self.path), *arguments], env=self.env)


def build_c_sample(folder: Path) -> CProgram:
    """Compiles ``bindings/c/waveform.c`` against the loaded library: with ``cc``, or for a ThreadSanitizer build
    of the library with the toolchain's ``clang -fsanitize=thread`` (as scripts/test-tsan-c.sh does). Skips
    without a compiler or outside a source checkout."""
    source = REPO_ROOT / "bindings" / "c" / "waveform.c"
    include = REPO_ROOT / "include"
    if not source.exists() or not (include / "voicenote.h").exists():
        pytest.skip("bindings/c/waveform.c or include/voicenote.h is not reachable (not a source checkout)")
    library = loaded_library_path()
    libdir = folder / "lib"
    libdir.mkdir()
    # The link needs libvoicenote.so, the loader the SONAME libvoicenote.so.0.
    for name in ("libvoicenote.so", "libvoicenote.so.0"):
        (libdir / name).symlink_to(library)
    program = folder / "waveform"
    env = dict(os.environ)
    if is_tsan_build(library):
        clang = _toolchain_clang()
        if clang is None:
            pytest.skip("the library is a ThreadSanitizer build and no toolchain clang was found (set TSAN_CC)")
        toolchain_libs = clang.parent.parent / "lib" / "swift" / "linux"
        command = [str(clang), "-fsanitize=thread", "-g"]
        extra = [f"-L{toolchain_libs}", "-ldispatch", "-lBlocksRuntime", f"-Wl,-rpath,{toolchain_libs}"]
        # The program carries its own TSan runtime: a preloaded second one (the Python run's) must not load.
        preload = [item for item in env.get("LD_PRELOAD", "").split() if "clang_rt.tsan" not in item]
        env["LD_PRELOAD"] = " ".join(preload)
    else:
        compiler = shutil.which("cc")
        if compiler is None:
            pytest.skip("no C compiler (cc)")
        command, extra = [compiler], []
    run(command + ["-std=c99", "-I", str(include), str(source), "-o", str(program), "-L", str(libdir),
                   "-lvoicenote", f"-Wl,-rpath,{libdir}"] + extra)
    return CProgram(program, env)


def _ogg_crc(data: bytes) -> int:
    """Ogg's CRC-32 (polynomial 0x04C11DB7, no reflection, initial 0)."""
    crc = 0
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def ogg_page(packets: Sequence[bytes], granule: int, sequence: int, flags: int = 0, serial: int = 0x1234) -> bytes:
    """One Ogg page holding whole ``packets`` (each under 255 bytes), its CRC set."""
    lacing = bytes(len(packet) for packet in packets)
    header = bytearray(b"OggS" + bytes([0, flags]) + struct.pack("<qIII", granule, serial, sequence, 0)
                       + bytes([len(lacing)]) + lacing)
    body = b"".join(packets)
    header[22:26] = struct.pack("<I", _ogg_crc(bytes(header) + body))
    return bytes(header) + body


def ogg_opus_note(pages: Sequence[Sequence[bytes]], serial: int = 0x1234) -> bytes:
    """An Ogg Opus file (mono, no pre-skip) whose audio pages hold ``pages``' packets, each page's granule position
    the sum of their durations as their TOC bytes say (how a stranger's file states a length it does not hold);
    ``serial`` tells it from another link it is chained to."""
    frame_ms = {0: 10, 1: 20, 2: 40, 3: 60}
    out = [ogg_page([b"OpusHead" + bytes([1, 1]) + struct.pack("<HIhB", 0, 48000, 0, 0)], 0, 0, flags=2, serial=serial),
           ogg_page([b"OpusTags" + struct.pack("<I", 2) + b"vn" + struct.pack("<I", 0)], 0, 1, serial=serial)]
    granule = 0
    for index, packets in enumerate(pages):
        for packet in packets:  # SILK TOCs (configs 0…11) only: 10/20/40/60 ms frames
            frames = {0: 1, 1: 2, 2: 2}.get(packet[0] & 3) or packet[1] & 0x3F
            granule += frames * frame_ms[(packet[0] >> 3) & 3] * 48
        out.append(ogg_page(packets, granule, index + 2, flags=4 if index == len(pages) - 1 else 0, serial=serial))
    return b"".join(out)


def _crc(data: bytes, width: int, polynomial: int) -> int:
    """A CRC of ``width`` bits, most significant bit first, initial 0 (FLAC's CRC-8 and CRC-16)."""
    top, mask, crc = 1 << (width - 1), (1 << width) - 1, 0
    for byte in data:
        crc ^= byte << (width - 8)
        for _ in range(8):
            crc = ((crc << 1) ^ polynomial) & mask if crc & top else (crc << 1) & mask
    return crc


def constant_flac(frames: int, block_size: int = 65535) -> bytes:
    """A FLAC stream (8 kHz mono, 16-bit, its length in STREAMINFO) of ``frames`` frames of ``block_size`` samples,
    each a constant subframe of silence in 13 to 15 bytes: 8 s in 13 bytes at the largest block size."""
    info = struct.pack(">HH", block_size, block_size) + bytes(6)
    info += struct.pack(">Q", 8000 << 44 | 15 << 36 | frames * block_size) + bytes(16)
    out = [b"fLaC" + bytes([0x80]) + len(info).to_bytes(3, "big") + info]
    for index in range(frames):  # the frame number coded as UTF-8 codes characters
        number = chr(index).encode("utf-8", "surrogatepass")
        header = bytes([0xFF, 0xF8, 0x74, 0x08]) + number + struct.pack(">H", block_size - 1)
        frame = header + bytes([_crc(header, 8, 0x07)]) + bytes(3)  # constant subframe, value 0 in 16 bits
        out.append(frame + struct.pack(">H", _crc(frame, 16, 0x8005)))
    return b"".join(out)


#: A 2-byte Opus packet claiming 120 ms: TOC code 3 (SILK NB, 60 ms frames), 2 frames of no data.
EMPTY_120_MS = bytes([(3 << 3) | 3, 2])
