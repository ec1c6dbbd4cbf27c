#!/usr/bin/python3
"""What a screen reader reads of the proof program (app.py, or any of the four: drive.py's protocol), through AT-SPI
itself: the program runs with GTK's AT-SPI backend on a private session bus, and this process reads its accessible
tree and its events with libatspi (python3-gi's Atspi 2.0: the library Orca reads through).

    screen-reader.py OUTPUT_DIR PROGRAM [ARGUMENTS...]

Run under an X server (`make test` runs it under xvfb-run). It makes itself a child subreaper, starts a session bus
(`dbus-daemon --session`, listening in a new temporary directory) and runs the program on it in drive.py's world with
GTK_A11Y=atspi: GTK asks the bus for org.a11y.Bus's address, which activates at-spi-bus-launcher (the session
configuration's service directories), which starts the accessibility bus (in that directory: XDG_RUNTIME_DIR), on
which at-spi2-registryd is activated. Here libatspi finds the program's application on the desktop by its process id
and checks, at each step, what a screen reader would announce (role, name, description, focus; a node's children
exactly, in order):

  idle       the composer a panel "Voice message composer" described as the flow is ("Record a voice message: hold
             to record"), its one child the focused push button "Record voice message" described the same, with no
             children (its icons are presentation); two panels "Voice message, 0:02" and "…, 0:01", undescribed,
             each exactly: push button "Play", slider "Voice note position", label "0:02", push button "Playback
             speed 1x"; every focusable node of the application named
  hold       (xdotool mousedown on the record button, the clock 0.5 s) RECORDING: the record button's and the
             composer's description "Recording, m:ss, slide left to cancel, slide up to lock", each sent as an
             accessible-description event; the composer holds the timer label and the record button (the live bars
             are presentation)
  lock       (the pointer 60 px up) LOCKED: "Recording locked, m:ss; stop, discard or send"; the composer holds
             Discard, the timer, Send voice message, the record button
  preview    (mouseup, a click) PREVIEW: "Voice message, m:ss, ready to send; …"; the composer holds Discard, Play,
             the trim area (sliders Voice note position, Trim start, Trim end), the timer, Send voice message; every
             focusable node named
  send       (a click) IDLE: the idle description again
  speed      (a click on the first row's speed button) its name "Playback speed 1.5x", sent as an accessible-name event
  focus      (xdotool key shift+Tab) the first row's slider focused, sent as a state-changed:focused event
  play       (a click on its play button) its name "Pause" and the row's description "playing at 0:0N"; another
             click: "Play", "paused at 0:0N"

A slider's value (now, min, max, text) is AT-SPI's Value interface. GTK 4.8's backend publishes that interface only
for GTK's own range widgets (GtkRange, GtkSpinButton, ...); from GTK 4.10 on, for a widget implementing
GtkAccessibleRange. Where the program's GTK has no Value on the sliders and is older than 4.10, the widgets give
their value as their description instead (what a screen reader there announces after the name): the waveform's "0 %"
at rest, "5 %" after the Right key, a trim handle's time (m:ss); from 4.10 on a slider without Value fails; with it,
the waveform's value must be 0 of 0…100 at rest and follow the Right key.

Every wait is bounded: the program's lines as drive.py waits for them, AT-SPI state polled every TICK_MS while the
main context takes libatspi's events, until WAIT_S. At the end the program quits, the session bus is stopped by its
pid, and the launcher, the accessibility bus and the registry daemon, orphaned to this process, are waited for
(killed by pid after WAIT_S); nothing sleeps.
"""
import ctypes
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

from drive import LOCK_MOVE, WAIT_S, pointer, program_in_world, tool  # noqa: E402

TICK_MS = 20  # how often a wait reads the state again
PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>

IDLE = "Record a voice message: hold to record"
RECORDING = r"Recording, \d+:\d\d, slide left to cancel, slide up to lock"
LOCKED = r"Recording locked, \d+:\d\d; stop, discard or send"
PREVIEW = r"Voice message, \d+:\d\d, ready to send; play, trim, discard or send"
ROW = ("push button:Play", "slider:Voice note position", "label:{duration}", "push button:Playback speed 1x")
RECORD = "push button:Record voice message"
DISCARD, SEND, TIME = "push button:Discard", "push button:Send voice message", r"label:\d+:\d\d"


def become_subreaper():
    """Orphaned descendants (what the session bus activates) become this process's children, for it to reap."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def children():
    """The process ids whose parent is this process (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    fields = file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            if int(fields[1]) == os.getpid():
                found.append(int(entry))
    return found


def reap_children(deadline):
    """Waits for every child (and those orphaned to it meanwhile) until the deadline, then kills the rest by pid.
    Returns the pids it had to kill."""
    killed = []
    while pids := children():
        for pid in pids:
            descriptor = os.pidfd_open(pid)
            try:
                if not select.select([descriptor], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                os.waitpid(pid, 0)
            finally:
                os.close(descriptor)
    return killed


class SessionBus:
    """A private session bus (dbus-daemon --session, in a new temporary directory); DBUS_SESSION_BUS_ADDRESS names
    it for this process and its children from then on. Its messages go to dbus.log there, printed on failure."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="vn-gtk-bus-")
        self.log = os.path.join(self.directory, "dbus.log")
        self.process = None
        read, write = os.pipe()
        try:
            with open(self.log, "w") as log:
                # XDG_RUNTIME_DIR: at-spi-bus-launcher makes the accessibility bus's socket there (not in ~/.cache).
                self.process = subprocess.Popen(
                    ["dbus-daemon", "--session", "--nofork", f"--address=unix:dir={self.directory}",
                     f"--print-address={write}"], pass_fds=(write,), stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=log, env=dict(os.environ, XDG_RUNTIME_DIR=self.directory))
            os.close(write)
            write = None
            address, deadline = b"", time.monotonic() + WAIT_S
            while not address.endswith(b"\n"):
                if not select.select([read], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    raise AssertionError(f"dbus-daemon printed no address within {WAIT_S} s")
                chunk = os.read(read, 4096)
                assert chunk, f"dbus-daemon exited (exit {self.process.wait(WAIT_S)}) without an address"
                address += chunk
        except BaseException:
            self.stop(failed=True)
            raise
        finally:
            os.close(read)
            if write is not None:
                os.close(write)
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = address.decode().strip()
        print(f"   session bus {os.environ['DBUS_SESSION_BUS_ADDRESS']} (pid {self.process.pid})", flush=True)

    def stop(self, failed):
        """The daemon stopped by its pid; what it activated is left to reap_children()."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(WAIT_S)
        if failed:
            with open(self.log) as log:
                print("   dbus-daemon's log:\n" + log.read(), flush=True)
        shutil.rmtree(self.directory)


def fresh(node):
    """The node, its libatspi cache dropped: what it reads next comes from the program."""
    node.clear_cache()
    return node


def role(node):
    return node.get_role_name()


def describe(node):
    """What a screen reader would say of it: role, name and description (libatspi's cache dropped first)."""
    fresh(node)
    return f"{role(node)} {node.get_name()!r}" + (f" ({node.get_description()})" if node.get_description() else "")


def tree(node):
    """The node and every node under it, depth first."""
    yield node
    for index in range(node.get_child_count()):
        yield from tree(node.get_child_at_index(index))


def kids(node):
    fresh(node)
    return [node.get_child_at_index(index) for index in range(node.get_child_count())]


def check_children(node, *patterns):
    """The node's children, in order, are one each of these "role:name" patterns (regular expressions, matched
    whole): what a screen reader walks through, nothing hidden in between. Returns them."""
    found = kids(node)
    shown = [f"{role(child)}:{child.get_name() or ''}" for child in found]
    assert len(shown) == len(patterns) and all(re.fullmatch(p, s) for p, s in zip(patterns, shown)), \
        f"{describe(node)} holds {shown}, not {list(patterns)}"
    print(f"   {describe(node)}: {', '.join(shown)}", flush=True)
    return found


def states(node):
    return fresh(node).get_state_set()


class Reader:
    """libatspi in this process: the program's application, its tree, the events it sends (all kept)."""

    EVENTS = ("object:property-change:accessible-name", "object:property-change:accessible-description",
              "object:state-changed:focused")

    def __init__(self, pid):
        Atspi.init()
        self.events = []
        self.listener = Atspi.EventListener.new(self.events.append)
        for kind in self.EVENTS:
            self.listener.register(kind)
        GLib.timeout_add(TICK_MS, lambda: True)  # wakes the waits' main context iterations
        desktop = Atspi.get_desktop(0)

        def application():
            return next((app for app in kids(desktop) if app.get_process_id() == pid), None)

        self.app = self.wait(application, f"the application of process {pid} on the AT-SPI desktop")
        print(f"   application: {self.app.get_toolkit_name()} {self.app.get_toolkit_version()}, pid {pid}", flush=True)
        self.slider_note = None  # printed once: why a slider's value is not read

    @staticmethod
    def wait(condition, what):
        """condition()'s first true result; libatspi's events taken meanwhile; fails after WAIT_S."""
        deadline, context = time.monotonic() + WAIT_S, GLib.MainContext.default()
        while not (result := condition()):
            assert time.monotonic() < deadline, f"{what}: not within {WAIT_S} s"
            context.iteration(True)
        return result

    def matches(self, kind, name, under=None):
        """The nodes of this role and name (a regular expression, matched whole) under a node (the application)."""
        return [node for node in tree(fresh(under or self.app))
                if role(node) == kind and re.fullmatch(name, fresh(node).get_name() or "")]

    def find(self, kind, name, under=None):
        """The one node of this role and name under a node (the application)."""
        found = self.matches(kind, name, under)
        assert len(found) == 1, f"{len(found)} {kind} nodes named {name!r}: {[describe(n) for n in found]}"
        return found[0]

    def until_described(self, node, pattern, events=True):
        """Waits until the node's description is the pattern; with events, until it also came as an
        accessible-description event of that node (what makes a screen reader speak it)."""
        text = self.wait(lambda: re.fullmatch(pattern, fresh(node).get_description() or "") and node.get_description(),
                         f"{describe(node)} described as {pattern!r}")
        if events:
            self.until_event("object:property-change:accessible-description", node, text)
        print(f"   {describe(node)}", flush=True)
        return text

    def until_named(self, node, name):
        self.wait(lambda: fresh(node).get_name() == name, f"{describe(node)} named {name!r}")
        self.until_event("object:property-change:accessible-name", node, name)
        print(f"   {describe(node)}", flush=True)

    def until_event(self, kind, node, data):
        def seen():
            return any(event.type == kind and event.source == node and
                       (event.any_data == data if isinstance(data, str) else event.detail1 == data)
                       for event in self.events)

        self.wait(seen, f"a {kind} event from {describe(node)} with {data!r}")

    def check_named(self):
        """Every focusable node of the application has a name (a screen reader would say only its role)."""
        focusable = [node for node in tree(self.app) if states(node).contains(Atspi.StateType.FOCUSABLE)]
        assert focusable, "no focusable node"
        unnamed = [describe(node) for node in focusable if not node.get_name()]
        assert not unnamed, f"focusable nodes without a name: {unnamed}"
        print(f"   {len(focusable)} focusable nodes, all named", flush=True)

    def check_slider(self, node, now=None):
        """The slider's position as a screen reader gets it: its Value (now, when given; min 0, max 100 for a
        waveform) where the program's GTK publishes it, else (GTK before 4.10) its description: "N %" for a waveform
        at `now`, a time m:ss for a trim handle."""
        if "Value" not in node.get_interfaces():
            major, minor = (int(part) for part in self.app.get_toolkit_version().split(".")[:2])
            assert (major, minor) < (4, 10), \
                f"{describe(node)} has no AT-SPI Value: GTK {major}.{minor} publishes it for a GtkAccessibleRange"
            if self.slider_note is None:
                self.slider_note = (f"   the sliders' value as their description (GTK {self.app.get_toolkit_version()}'s "
                                    "AT-SPI backend publishes Value only for GTK's own range widgets)")
                print(self.slider_note, flush=True)
            if now is not None:
                self.wait(lambda: fresh(node).get_description() == f"{now:.0f} %", f"{describe(node)} at {now:.0f} %")
            else:
                assert re.fullmatch(r"\d+:\d\d", fresh(node).get_description() or ""), describe(node)
            print(f"   {describe(node)}", flush=True)
            return True
        value = node.get_value_iface()
        if now is not None:
            self.wait(lambda: value.get_current_value() == now, f"{describe(node)} at {now}")
            assert (value.get_minimum_value(), value.get_maximum_value()) == (0, 100), describe(node)
        print(f"   {describe(node)}: {value.get_current_value()} of {value.get_minimum_value()}…"
              f"{value.get_maximum_value()}, {value.get_text()!r}", flush=True)
        return True


def check_idle(reader):
    composer = reader.find("panel", "Voice message composer")
    record, = check_children(composer, RECORD)
    check_children(record)  # its icons are presentation
    reader.until_described(composer, re.escape(IDLE), events=False)
    reader.until_described(record, re.escape(IDLE), events=False)
    assert states(record).contains(Atspi.StateType.FOCUSED), "the record button has the focus at start"
    rows = []
    for duration in ("0:02", "0:01"):
        row = reader.find("panel", f"Voice message, {duration}")
        parts = check_children(row, *(part.format(duration=duration) for part in ROW))
        assert not row.get_description(), describe(row)
        reader.check_slider(parts[1], now=0)
        rows.append(row)
    reader.check_named()
    return composer, record, rows


def scenario(program, reader_of):
    xid = program.expect("ready")[1]
    reader = reader_of(program.process.pid)

    def where(part):
        _, _, x, y = program.ask(f"where {part}", "point", part)
        return int(x), int(y)

    print("   idle:", flush=True)
    composer, record, rows = check_idle(reader)

    print("   hold:", flush=True)
    at = where("record")
    pointer(xid, *at, "mousedown", 1)
    program.expect("press")
    program.ask("advance 0.5", "advanced")
    program.expect("state", "RECORDING")
    reader.until_described(record, RECORDING)
    reader.until_described(composer, RECORDING)
    check_children(composer, TIME, RECORD)  # the live bars are presentation

    print("   lock:", flush=True)
    pointer(xid, at[0], at[1] - LOCK_MOVE)
    program.expect("state", "LOCKED")
    reader.until_described(record, LOCKED)
    reader.until_described(composer, LOCKED)
    check_children(composer, DISCARD, TIME, SEND, RECORD)

    print("   preview:", flush=True)
    tool("xdotool", "mouseup", "1")
    pointer(xid, *at, "click", 1)
    program.expect("state", "PREVIEW")
    reader.until_described(composer, PREVIEW)
    trim = check_children(composer, DISCARD, "push button:Play", "panel:Trim", TIME, SEND)[2]
    waveform, start, end = check_children(trim, "slider:Voice note position", "slider:Trim start", "slider:Trim end")
    reader.check_slider(waveform, now=0)
    for handle in (start, end):
        reader.check_slider(handle)
    reader.check_named()

    print("   send:", flush=True)
    pointer(xid, *where("send"), "click", 1)
    program.expect("attachment-ready")
    program.expect("state", "IDLE")
    reader.until_described(composer, re.escape(IDLE))
    reader.until_described(record, re.escape(IDLE))

    print("   speed, focus:", flush=True)
    play, slider, _, speed = kids(rows[0])
    pointer(xid, *where("rate"), "click", 1)
    program.expect("rate", "1.5")
    reader.until_named(speed, "Playback speed 1.5x")
    tool("xdotool", "key", "shift+Tab")  # from the speed button (focused by the click) back to the row's slider
    reader.until_event("object:state-changed:focused", slider, 1)
    assert states(slider).contains(Atspi.StateType.FOCUSED), describe(slider)
    print(f"   focused: {describe(slider)}", flush=True)
    reader.check_slider(slider, now=0)
    tool("xdotool", "key", "Right")
    reader.check_slider(slider, now=5)

    print("   play:", flush=True)
    pointer(xid, *where("play"), "click", 1)
    program.expect("player", "PLAYING")
    reader.until_named(play, "Pause")
    reader.until_described(rows[0], r"playing at 0:0\d")
    pointer(xid, *where("play"), "click", 1)
    program.expect("player", "PAUSED")
    reader.until_named(play, "Play")
    reader.until_described(rows[0], r"paused at 0:0\d")
    program.ask("quit")
    assert program.process.wait(WAIT_S) == 0, f"exit {program.process.returncode}"
    print(f"   {len(reader.events)} events read", flush=True)


def main():
    output, argv = sys.argv[1], sys.argv[2:]
    os.makedirs(output, exist_ok=True)
    become_subreaper()
    started = time.monotonic()
    bus, failed = SessionBus(), True
    try:
        os.environ["GTK_A11Y"] = "atspi"  # the program's GTK publishes on the accessibility bus (make test's is "test")
        os.environ.pop("AT_SPI_BUS_ADDRESS", None)  # a desktop's accessibility bus: ours is found through the session bus
        with program_in_world(argv, output) as (program, _):
            scenario(program, Reader)
        failed = False
    finally:
        bus.stop(failed)
        killed = reap_children(time.monotonic() + WAIT_S)
    assert not killed, f"killed {killed}: still running {WAIT_S} s after the session bus stopped"
    print(f"   screen reader: {(time.monotonic() - started) * 1000:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
