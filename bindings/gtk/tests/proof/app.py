#!/usr/bin/python3
"""The proof program in Python (Debian's python3 with python3-gi): a chat window with a VnComposer over a VnFlow and
two received notes as VnVoiceMessage rows on one VnPlayer, driven from outside by drive.py (its docstring has the
protocol: state lines out, commands in).

    app.py WORK OUTPUT_DIR

WORK holds what drive.py made: tone.raw (the microphone: an ALSA `file` PCM reading it), takes/, note1.ogg,
note2.ogg and speaker.fifo (the notes' speaker). The flow's own player writes to WORK/heard.raw; its timers run on
a VnManualClock (the `clock` construct property) that only `advance` moves.
"""
import ctypes
import math
import os
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("GdkX11", "4.0")
gi.require_version("Voicenote", "1.0")
gi.require_version("VoicenoteGtk", "1.0")
from gi.repository import GdkX11, Gio, GLib, Gtk, Voicenote, VoicenoteGtk  # noqa: E402

WORK, OUTPUT = sys.argv[1], sys.argv[2]
MICROPHONE = 'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{}" format raw }}'
SPEAKER = 'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{}" format raw perm 0600 }}'


def on_exception(kind, value, traceback):
    """An exception (in a handler too, which PyGObject would only print) ends the program: the driver sees it."""
    sys.__excepthook__(kind, value, traceback)
    os._exit(1)


sys.excepthook = on_exception


def say(line):
    print(line, flush=True)


def nick(value):
    return value.value_nick.upper().replace("-", "_")


clock = Voicenote.ManualClock.new()
recorder = Voicenote.Recorder.new("vn_mic", MICROPHONE.format(os.path.join(WORK, "tone.raw")),
                                  os.path.join(WORK, "takes"))
flow = Voicenote.Flow(recorder=recorder, player=Voicenote.Player.new_for_device(
    "vn_spk", SPEAKER.format(os.path.join(WORK, "heard.raw"))), clock=clock)
flow.init(None)
flow.connect("notify::state", lambda f, _: say(f"state {nick(f.props.state)} {f.props.duration:.3f}"))
flow.connect("trimmed", lambda _f, _path, duration, _w, _p: say(f"trimmed {duration:.3f}"))
flow.connect("attachment-ready", lambda _f, _path, duration, _w, _p: say(f"attachment-ready {duration:.3f}"))
flow.connect("failed", lambda _f, error: say(f"failed flow {error.message}"))

player = Voicenote.Player.new_for_device("vn_spk", SPEAKER.format(os.path.join(WORK, "speaker.fifo")))
player.connect("notify::state", lambda p, _: say(f"player {nick(p.props.state)} rate {p.props.rate:g}"))
player.connect("notify::rate", lambda p, _: say(f"rate {p.props.rate:g}"))
player.connect("finished", lambda _p, _location: say("finished"))
player.connect("failed", lambda _p, error: say(f"failed player {error.message}"))

composer = VoicenoteGtk.Composer.new(flow)
composer.set_size_request(560, -1)
composer.set_margin_top(110)  # room for the record button's lock
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin_start=20, margin_end=20, margin_bottom=20)
box.append(composer)
rows = []
for index, seconds in ((1, 2.0), (2, 1.0)):
    row = VoicenoteGtk.VoiceMessage.new(player, os.path.join(WORK, f"note{index}.ogg"), seconds)
    row.get_waveform().set_values([0.3 + 0.6 * abs(math.sin(i * 0.23 + index)) for i in range(60)])
    box.append(row)
    rows.append(row)

window = Gtk.Window(title="voicenote proof (Python)", decorated=False, child=box)
# Every press, before the widget under it takes it (capture phase), so the driver knows the flow has it.
presses = Gtk.GestureClick(propagation_phase=Gtk.PropagationPhase.CAPTURE)
presses.connect("pressed", lambda *_: say("press"))
window.add_controller(presses)


def child(parent, css_name, test=lambda _w: True):
    widget = parent.get_first_child()
    while widget is not None and not (widget.get_css_name() == css_name and test(widget)):
        widget = widget.get_next_sibling()
    assert widget is not None, f"no {css_name} under {parent.get_css_name()}"
    return widget


def point(widget, fx, fy, dx=0.0):
    """The X window point at (fx, fy) of the widget's size, moved right by dx."""
    x, y = widget.translate_coordinates(window, widget.get_width() * fx + dx, widget.get_height() * fy)
    sx, sy = window.get_surface_transform()
    return round(x + sx), round(y + sy)


def where(part):
    trim = child(composer, "trim")
    start = child(trim, "trimhandle", lambda w: w.has_css_class("start"))
    if part == "record":
        return point(composer.get_record_button(), 0.5, 0.5)
    if part == "start":
        return point(start, 0.5, 0.5)
    if part == "trim-to":
        return point(trim, 0.25, 0.5, start.get_width() / 2)
    if part == "send":
        return point(child(composer, "button", lambda w: w.get_icon_name() == "document-send-symbolic"), 0.5, 0.5)
    if part == "rate":
        return point(rows[0].get_last_child(), 0.5, 0.5)
    if part == "play":
        return point(rows[0].get_first_child(), 0.5, 0.5)
    raise ValueError(part)


shots = []  # the names asked for, rendered after the next frame


# The render node step through ctypes: PyGObject 3.42 (Debian 12's python3-gi) has no wrapper for GskRenderNode, a
# fundamental type ("No means to translate argument or return value for 'GskClipNode'" from Gtk.Snapshot.to_node()),
# so the node goes from gtk_snapshot_free_to_node() to gsk_renderer_render_texture() as a pointer. Everything else is
# PyGObject's.
GTK = ctypes.CDLL("libgtk-4.so.1")
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
for _name, _result, _arguments in (
        ("gtk_snapshot_new", ctypes.c_void_p, []),
        ("gdk_paintable_snapshot", None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double, ctypes.c_double]),
        ("gtk_snapshot_free_to_node", ctypes.c_void_p, [ctypes.c_void_p]),
        ("gtk_native_get_renderer", ctypes.c_void_p, [ctypes.c_void_p]),
        ("gsk_renderer_render_texture", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
        ("gdk_texture_save_to_png", ctypes.c_bool, [ctypes.c_void_p, ctypes.c_char_p]),
        ("gsk_render_node_unref", None, [ctypes.c_void_p]),
        ("g_object_unref", None, [ctypes.c_void_p])):
    getattr(GTK, _name).restype, getattr(GTK, _name).argtypes = _result, _arguments


def pointer_of(instance):
    return _capsule_pointer(instance.__gpointer__, None)


def render(name):
    """The window's content (a widget paintable, snapshotted) rendered by the window's renderer to OUTPUT/name.png."""
    content = window.get_child()
    width, height = content.get_width(), content.get_height()
    paintable = Gtk.WidgetPaintable.new(content)
    snapshot = GTK.gtk_snapshot_new()
    GTK.gdk_paintable_snapshot(pointer_of(paintable), snapshot, width, height)
    node = GTK.gtk_snapshot_free_to_node(snapshot)
    assert node, "nothing drawn"
    bounds = (ctypes.c_float * 4)(0, 0, width, height)  # a graphene_rect_t
    texture = GTK.gsk_renderer_render_texture(GTK.gtk_native_get_renderer(pointer_of(window)), node, bounds)
    path = os.path.join(OUTPUT, name + ".png")
    saved = GTK.gdk_texture_save_to_png(texture, path.encode())
    GTK.g_object_unref(texture)
    GTK.gsk_render_node_unref(node)
    assert saved, path
    say(f"saved {path}")


ready = []  # once the window is mapped and painted


def on_after_paint(_clock):
    if not ready and window.get_surface().get_mapped():
        ready.append(True)
        say(f"ready {window.get_surface().get_xid()}")
        commands.read_line_async(GLib.PRIORITY_DEFAULT, None, on_command)
    # Here, not later: the widgets' render nodes are the ones just painted (an update of the flow's view, e.g. the
    # live bars, drops them until the next frame).
    while shots:
        render(shots.pop(0))


loop = GLib.MainLoop()
commands = Gio.DataInputStream.new(Gio.UnixInputStream.new(0, False))


def on_command(stream, result):
    line, _ = stream.read_line_finish_utf8(result)
    words = (line or "quit").split()
    if words[0] == "where":
        x, y = where(words[1])
        say(f"point {words[1]} {x} {y}")
    elif words[0] == "advance":
        clock.advance(float(words[1]))
        say("advanced")
    elif words[0] == "bars":
        say(f"bars {len(child(composer, 'waveform', lambda w: w.has_css_class('live')).get_values())}")
    elif words[0] == "shot":
        shots.append(words[1])
        window.queue_draw()
    elif words[0] == "quit":
        window.destroy()
        loop.quit()
        return
    stream.read_line_async(GLib.PRIORITY_DEFAULT, None, on_command)


window.connect("realize", lambda w: w.get_frame_clock().connect("after-paint", on_after_paint))
window.present()
loop.run()
