"""What the Python checks over the typelib share (a module, not a check: `make test` runs tests/gi/*.py only)."""
import os
import subprocess

WAIT_S = 30


def make_tone_note(directory, seconds=1.0):
    """Writes a `seconds` 440 Hz tone at half scale (sox, mono 48 kHz) encoded by opusenc to directory/note.ogg and
    returns its path; each tool is bounded by WAIT_S."""
    wav = os.path.join(directory, "note.wav")
    note = os.path.join(directory, "note.ogg")
    tone = ["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", str(seconds), "sine", "440", "vol", "0.5"]
    subprocess.run(tone, check=True, timeout=WAIT_S)
    subprocess.run(["opusenc", "--quiet", wav, note], check=True, timeout=WAIT_S)
    return note
