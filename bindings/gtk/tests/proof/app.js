// The proof program in JavaScript (gjs, an ES module: `gjs -m app.js WORK OUTPUT_DIR`): a chat window with a
// VnComposer over a VnFlow and two received notes as VnVoiceMessage rows on one VnPlayer, driven from outside by
// drive.py (its docstring has the protocol: state lines out, commands in). The same program as app.py.
//
// WORK holds what drive.py made: tone.raw (the microphone: an ALSA `file` PCM reading it), takes/, note1.ogg,
// note2.ogg and speaker.fifo (the notes' speaker). The flow's own player writes to WORK/heard.raw; its timers run on a
// VnManualClock (the `clock` construct property) that only `advance` moves. An exception in a handler (which gjs would
// only log) exits 1.
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Graphene from 'gi://Graphene';
import Gtk from 'gi://Gtk?version=4.0';
import GdkX11 from 'gi://GdkX11?version=4.0';
import Voicenote from 'gi://Voicenote?version=1.0';
import VoicenoteGtk from 'gi://VoicenoteGtk?version=1.0';
import System from 'system';

const [WORK, OUTPUT] = ARGV;
const microphone = path =>
    `pcm.vn_mic { type file slave.pcm { type null } file "/dev/null" infile "${path}" format raw }`;
const speaker = path => `pcm.vn_spk { type file slave.pcm { type null } file "${path}" format raw perm 0600 }`;
const inWork = name => GLib.build_filenamev([WORK, name]);

const say = line => print(line);
const nameOf = (enumeration, value) => Object.keys(enumeration).find(key => enumeration[key] === value);
// A handler that exits 1 on an exception.
const guard = handler => (...args) => {
    try {
        return handler(...args);
    } catch (e) {
        printerr(`${e}\n${e.stack}`);
        System.exit(1);
    }
    return undefined;
};

Gtk.init();

const clock = Voicenote.ManualClock.new();
const recorder = Voicenote.Recorder.new('vn_mic', microphone(inWork('tone.raw')), inWork('takes'));
const flow = new Voicenote.Flow({
    recorder,
    player: Voicenote.Player.new_for_device('vn_spk', speaker(inWork('heard.raw'))),
    clock,
});
flow.init(null);
flow.connect('notify::state', guard(f =>
    say(`state ${nameOf(Voicenote.FlowState, f.state)} ${f.duration.toFixed(3)}`)));
flow.connect('trimmed', guard((_f, _path, duration) => say(`trimmed ${duration.toFixed(3)}`)));
flow.connect('attachment-ready', guard((_f, _path, duration) => say(`attachment-ready ${duration.toFixed(3)}`)));
flow.connect('failed', guard((_f, error) => say(`failed flow ${error.message}`)));

const player = Voicenote.Player.new_for_device('vn_spk', speaker(inWork('speaker.fifo')));
player.connect('notify::state', guard(p => say(`player ${nameOf(Voicenote.PlayerState, p.state)} rate ${p.rate}`)));
player.connect('notify::rate', guard(p => say(`rate ${p.rate}`)));
player.connect('finished', guard(() => say('finished')));
player.connect('failed', guard((_p, error) => say(`failed player ${error.message}`)));

const composer = VoicenoteGtk.Composer.new(flow);
composer.set_size_request(560, -1);
composer.margin_top = 110; // room for the record button's lock
const box = new Gtk.Box({
    orientation: Gtk.Orientation.VERTICAL, spacing: 6, margin_start: 20, margin_end: 20, margin_bottom: 20,
});
box.append(composer);
const rows = [[1, 2.0], [2, 1.0]].map(([index, seconds]) => {
    const row = VoicenoteGtk.VoiceMessage.new(player, inWork(`note${index}.ogg`), seconds);
    row.get_waveform().set_values(Array.from({length: 60}, (_, i) => 0.3 + 0.6 * Math.abs(Math.sin(i * 0.23 + index))));
    box.append(row);
    return row;
});

const window = new Gtk.Window({title: 'voicenote proof (gjs)', decorated: false, child: box});
// Every press, before the widget under it takes it (capture phase), so the driver knows the flow has it.
const presses = new Gtk.GestureClick({propagation_phase: Gtk.PropagationPhase.CAPTURE});
presses.connect('pressed', guard(() => say('press')));
window.add_controller(presses);

function child(parent, cssName, test = () => true) {
    for (let widget = parent.get_first_child(); widget !== null; widget = widget.get_next_sibling()) {
        if (widget.get_css_name() === cssName && test(widget))
            return widget;
    }
    throw new Error(`no ${cssName} under ${parent.get_css_name()}`);
}

// The X window point at (fx, fy) of the widget's size, moved right by dx.
function point(widget, fx, fy, dx = 0) {
    const [ok, x, y] = widget.translate_coordinates(window, widget.get_width() * fx + dx, widget.get_height() * fy);
    if (!ok)
        throw new Error('not in the window');
    const [sx, sy] = window.get_surface_transform();
    return [Math.round(x + sx), Math.round(y + sy)];
}

function where(part) {
    const trim = child(composer, 'trim');
    const start = child(trim, 'trimhandle', w => w.has_css_class('start'));
    switch (part) {
    case 'record': return point(composer.get_record_button(), 0.5, 0.5);
    case 'start': return point(start, 0.5, 0.5);
    case 'trim-to': return point(trim, 0.25, 0.5, start.get_width() / 2);
    case 'send': return point(child(composer, 'button', w => w.get_icon_name() === 'document-send-symbolic'), 0.5, 0.5);
    case 'rate': return point(rows[0].get_last_child(), 0.5, 0.5);
    case 'play': return point(rows[0].get_first_child(), 0.5, 0.5);
    }
    throw new Error(`no part ${part}`);
}

// The window's content (a widget paintable, snapshotted) rendered by the window's renderer to OUTPUT/name.png.
function render(name) {
    const content = window.get_child();
    const [width, height] = [content.get_width(), content.get_height()];
    const snapshot = Gtk.Snapshot.new();
    Gtk.WidgetPaintable.new(content).snapshot(snapshot, width, height);
    const node = snapshot.to_node();
    if (node === null)
        throw new Error('nothing drawn');
    const texture = window.get_renderer().render_texture(node, new Graphene.Rect().init(0, 0, width, height));
    const path = GLib.build_filenamev([OUTPUT, `${name}.png`]);
    if (!texture.save_to_png(path))
        throw new Error(`not saved: ${path}`);
    say(`saved ${path}`);
}

const loop = new GLib.MainLoop(null, false);
const commands = new Gio.DataInputStream({base_stream: new Gio.UnixInputStream({fd: 0, close_fd: false})});
const shots = []; // the names asked for, rendered after the next frame

const onCommand = guard((stream, result) => {
    const [line] = stream.read_line_finish_utf8(result);
    const words = (line ?? 'quit').split(' ');
    switch (words[0]) {
    case 'where':
        say(`point ${words[1]} ${where(words[1]).join(' ')}`);
        break;
    case 'advance':
        clock.advance(Number(words[1]));
        say('advanced');
        break;
    case 'bars':
        say(`bars ${child(composer, 'waveform', w => w.has_css_class('live')).get_values().length}`);
        break;
    case 'shot':
        shots.push(words[1]);
        window.queue_draw();
        break;
    case 'quit':
        window.destroy();
        loop.quit();
        return;
    }
    stream.read_line_async(GLib.PRIORITY_DEFAULT, null, onCommand);
});

let ready = false; // once the window is mapped and painted
// Connected once realized. (window.realize() is Gtk.Native's realize in gjs, not the widget's.)
window.connect('realize', () => window.get_frame_clock().connect('after-paint', guard(() => {
    if (!ready && window.get_surface().get_mapped()) {
        ready = true;
        say(`ready ${window.get_surface().get_xid()}`);
        commands.read_line_async(GLib.PRIORITY_DEFAULT, null, onCommand);
    }
    // Here, not later: the widgets' render nodes are the ones just painted (an update of the flow's view, e.g. the
    // live bars, drops them until the next frame).
    while (shots.length > 0)
        render(shots.shift());
})));
window.present();
loop.run();
