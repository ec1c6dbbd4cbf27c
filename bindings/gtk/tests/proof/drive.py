#!/usr/bin/python3
"""Drives one of the proof programs (app.py, app.js, app.vala, app.c: the same small chat window in four languages)
through real X input, and checks what it says and draws. Debian's python3, standard library only.

    drive.py OUTPUT_DIR PROGRAM [ARGUMENTS...]

Run under an X server (`make test` runs it under xvfb-run). The driver makes the program's world in a temporary
directory WORK: tone.raw (30 s of a 440 Hz tone, raw mono S16 at 48 kHz, sox: what the ALSA `file` microphone
reads, unpaced), note1.ogg (2 s) and note2.ogg (1 s) (sox + opusenc: the two received notes), speaker.fifo (the
received notes' speaker: the driver reads it at a 48 kHz mono S16 card's pace, so a note plays in real time) and
takes/; then runs `PROGRAM ARGUMENTS... WORK OUTPUT_DIR`.

The program's protocol, one line each way (the driver sends a command only after the answer to the last one):
  it prints   ready XID                    its window is shown and painted (XID: the X window, for xdotool)
              press                        a button press reached the window (capture phase: before its widgets)
              state NAME SECONDS           the flow's state changed (NAME: RECORDING, LOCKED, PREVIEW, IDLE, ...)
              trimmed SECONDS              the flow's take was trimmed
              attachment-ready SECONDS     the flow sent its take
              player NAME rate RATE        the received notes' player's state changed (PLAYING ...)
              rate RATE                    that player's rate changed
              finished                     that player played a note to its end
              failed WHAT MESSAGE          the flow or the player failed (the driver stops there)
  it answers  where PART  -> point PART X Y   the X window point of a part: record (the record button's centre),
                                              start (the start trim handle's), trim-to (25 % of the trim area, where
                                              the start handle's centre goes), send, rate and play (the first row's
                                              speed and play buttons)
              advance SECONDS -> advanced     the flow's manual clock moved
              bars -> bars N                  the composer's live bars hold N values now
              shot NAME -> saved PATH         after one more frame, the window's content rendered (a widget
                                              paintable, the window's renderer) to OUTPUT_DIR/NAME.png
              quit                            the window closes and the program exits 0

The scenario: hold the record button (mousedown, then the clock 0.5 s): RECORDING; live bars; shot `recording`;
the pointer 60 px up: LOCKED; shot `locked`; mouseup, a click on the record button: PREVIEW; the start handle
dragged to 25 %: `trimmed` about 75 % of the take; shot `preview`; send: `attachment-ready` with the trimmed
length, IDLE; the first row's speed button twice: rate 1.5, then 2; its play: PLAYING at rate 2; shot `playing`;
`finished`. The flow's states are exactly RECORDING, LOCKED, PREVIEW, IDLE. Each PNG is read here (zlib and
struct, no imaging library) and must not be blank (more than 2 % of its pixels differ from its top-left one) nor
the same as the one before. Every
wait is bounded (a line within WAIT_S, each tool under a timeout); nothing sleeps.
"""
import contextlib
import fcntl
import os
import queue
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

WAIT_S = 20  # the longest wait for one line of the program
TOOL_S = 30  # sox, opusenc, xdotool
PIPE_BYTES = 4096
SPEAKER_BYTES_PER_S = 48000 * 2
LOCK_MOVE = 60  # px up: past the flow's lock distance (50)
TRIM_TO = 0.25


def tool(*argv):
    """Runs a program to its end within TOOL_S; it must exit 0."""
    subprocess.run(argv, check=True, timeout=TOOL_S, stdout=subprocess.DEVNULL)


class Speaker:
    """The FIFO the received notes' ALSA `file` speaker writes into, read at a sound card's pace by a thread."""

    def __init__(self, path):
        self.path = path
        os.mkfifo(path, 0o600)
        # Our end first, without waiting for a writer, so the player's open never blocks.
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        fcntl.fcntl(self.fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.stop = threading.Event()
        self.bytes = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        credit, last = 0.0, time.monotonic()
        while not self.stop.is_set():
            now = time.monotonic()
            credit = min(credit + (now - last) * SPEAKER_BYTES_PER_S, PIPE_BYTES)
            last = now
            if credit >= 1:
                try:
                    got = len(os.read(self.fd, int(credit)))
                except BlockingIOError:
                    got = 0
                credit -= got
                self.bytes += got
            self.stop.wait(0.005)  # the card's next 5 ms (or the end)

    def close(self):
        self.stop.set()
        self.thread.join(5)
        os.close(self.fd)


class Program:
    """The program under test: its stdout lines through a queue (a reader thread), its stdin for commands."""

    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.states = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, *prefix):
        """The next line starting with these words (others are logged and kept: states), within WAIT_S."""
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no '{' '.join(prefix)}' within {WAIT_S} s") from None
            if line is None:
                raise AssertionError(f"the program ended (exit {self.process.wait(5)}) before '{' '.join(prefix)}'")
            print(f"   < {line}", flush=True)
            words = line.split()
            if words[:1] == ["failed"]:
                raise AssertionError(f"the program said: {line}")
            if words[:1] == ["state"]:
                self.states.append(words[1])
            if words[:len(prefix)] == list(prefix):
                return words

    def ask(self, command, *answer):
        print(f"   > {command}", flush=True)
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.expect(*answer) if answer else None


def png_pixels(path):
    """A PNG's width, height and RGBA rows (8-bit RGBA or RGB, not interlaced: what GDK writes)."""
    with open(path, "rb") as file:
        data = file.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"{path}: depth {depth}, colour type {colour}"
    channels = 4 if colour == 6 else 3
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind != 0:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up, up_left = previous[i], previous[i - channels] if i >= channels else 0
                if kind == 1:
                    line[i] = (line[i] + left) & 0xFF
                elif kind == 3:
                    line[i] = (line[i] + (left + up) // 2) & 0xFF
                elif kind == 4:
                    p = left + up - up_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                    line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 0xFF
        previous = line
        rows.append(line if channels == 4 else
                    bytearray(b"".join(bytes(line[i:i + 3]) + b"\xff" for i in range(0, stride, 3))))
    return width, height, rows


def check_not_blank(path):
    """More than 2 % of the PNG's pixels differ from its top-left one (the background) by more than a little."""
    width, height, rows = png_pixels(path)
    corner = rows[0][:4]
    background = bytes(corner) * width
    differing = sum(1 for row in rows if row != background for x in range(0, width * 4, 4)
                    if sum(abs(row[x + c] - corner[c]) for c in range(4)) > 24)
    print(f"   {os.path.basename(path)}: {width}x{height}, {differing} pixels differ from the background", flush=True)
    assert differing > width * height / 50, f"{path} is blank: {differing} of {width * height} pixels differ"
    return rows


def pointer(xid, x, y, *then):
    """xdotool: the pointer to (x, y) of the X window, then `then` (e.g. "mousedown", 1). No --sync: it would wait
    forever when the pointer is already there; the server takes the motion and the button in order."""
    tool("xdotool", "mousemove", "--window", xid, str(x), str(y), *[str(a) for a in then])


def scenario(program, output):
    xid = program.expect("ready")[1]

    def where(part):
        _, _, x, y = program.ask(f"where {part}", "point", part)
        return int(x), int(y)

    shots = []  # each one's pixels

    def shot(name):
        """The window drawn now: not blank, and not what the last shot drew (the state shows)."""
        path = program.ask(f"shot {name}", "saved")[1]
        assert path == os.path.join(output, name + ".png"), path
        shots.append(check_not_blank(path))
        assert len(shots) == 1 or shots[-1] != shots[-2], f"{name}.png is the last shot again"

    # Hold: recording, with live bars.
    record = where("record")
    pointer(xid, *record, "mousedown", 1)
    program.expect("press")
    program.ask("advance 0.5", "advanced")
    program.expect("state", "RECORDING")
    deadline = time.monotonic() + WAIT_S
    while int(program.ask("bars", "bars")[1]) == 0:
        assert time.monotonic() < deadline, f"no live bars within {WAIT_S} s"
    shot("recording")

    # Up: locked. Released, then the record button (a stop button now): preview.
    pointer(xid, record[0], record[1] - LOCK_MOVE)
    program.expect("state", "LOCKED")
    shot("locked")
    tool("xdotool", "mouseup", "1")  # the X server delivers it before the next click's press
    pointer(xid, *record, "click", 1)
    recorded = float(program.expect("state", "PREVIEW")[2])

    # The start handle dragged to 25 % of the take: trimmed to about 75 % of it.
    start, to = where("start"), where("trim-to")
    pointer(xid, *start, "mousedown", 1)
    program.expect("press")
    pointer(xid, to[0], start[1], "mouseup", 1)
    trimmed = float(program.expect("trimmed")[1])
    print(f"   trimmed {trimmed:.3f} s of {recorded:.3f} ({trimmed / recorded * 100:.1f} %)", flush=True)
    assert abs(trimmed / recorded - (1 - TRIM_TO)) <= 0.03, (trimmed, recorded)
    shot("preview")

    # Send: the trimmed take, then idle.
    pointer(xid, *where("send"), "click", 1)
    sent = float(program.expect("attachment-ready")[1])
    assert sent == trimmed, (sent, trimmed)
    program.expect("state", "IDLE")
    assert program.states == ["RECORDING", "LOCKED", "PREVIEW", "IDLE"], program.states

    # The first received note: its speed button to 2x, then play it to its end.
    rate = where("rate")
    pointer(xid, *rate, "click", 1)
    program.expect("rate", "1.5")
    pointer(xid, *rate, "click", 1)
    program.expect("rate", "2")
    pointer(xid, *where("play"), "click", 1)
    program.expect("player", "PLAYING", "rate", "2")
    shot("playing")
    program.expect("finished")
    program.ask("quit")
    assert program.process.wait(WAIT_S) == 0, f"exit {program.process.returncode}"


def make_world(work):
    """The program's world in WORK (the module's docstring): tone.raw, note1.ogg, note2.ogg, takes/ and
    speaker.fifo, whose reader (a Speaker, running) it returns."""
    os.mkdir(os.path.join(work, "takes"))
    tool("sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw",
         os.path.join(work, "tone.raw"), "synth", "30", "triangle", "440", "vol", "0.5")
    for name, seconds, frequency in (("note1", "2", "440"), ("note2", "1", "660")):
        wav = os.path.join(work, name + ".wav")
        tool("sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", seconds, "sine", frequency, "vol", "0.5")
        tool("opusenc", "--quiet", wav, os.path.join(work, name + ".ogg"))
    return Speaker(os.path.join(work, "speaker.fifo"))


@contextlib.contextmanager
def program_in_world(argv, output):
    """`argv... WORK OUTPUT` started (a Program) in a world made in a new temporary directory WORK; yields the
    program and the speaker. On leaving, the program is killed if it still runs, the speaker closed, WORK removed."""
    work = tempfile.mkdtemp(prefix="vn-gtk-proof-")
    speaker, program = None, None
    try:
        speaker = make_world(work)
        program = Program(argv + [work, output])
        yield program, speaker
    finally:
        if program is not None and program.process.poll() is None:
            program.process.kill()
            program.process.wait(5)
        if speaker is not None:
            speaker.close()
        shutil.rmtree(work)


def main():
    output, argv = sys.argv[1], sys.argv[2:]
    os.makedirs(output, exist_ok=True)
    with program_in_world(argv, output) as (program, speaker):
        started = time.monotonic()
        scenario(program, output)
        print(f"   scenario: {(time.monotonic() - started) * 1000:.0f} ms, {speaker.bytes} bytes played", flush=True)


if __name__ == "__main__":
    main()
