// Voicenote.Recorder:levels through GObject Introspection from JavaScript (gjs, run as an ES module:
// `gjs -m levels.js`).
//
// Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. The microphone is
// ALSA's `file` plugin reading 5 s of a raw 440 Hz tone (S16, 48 kHz, mono, unpaced), as tests/capture-rig.h has it.
// - a 1 s take: `notify::levels` handlers read `recorder.levels`, a GLib.Variant of type "ad" whose deepUnpack() is
//   an array of numbers; each notify a change from the one before (how many depends on how the unpaced capture's
//   steps coalesce), at most 40 values in 0…1, the fullest at least the 10 meter steps of 1 s and ending at the
//   tone's level; an empty "ad" before the take.
// Handlers only record; the checks run after the main loop, which every wait bounds with a timeout that fails the
// test. A failed check exits 1.
import GLib from 'gi://GLib';
import Voicenote from 'gi://Voicenote?version=1.0';
import System from 'system';

import {WAIT_S, check, runUntil} from './support/mainloop.js';

const RATE = 48000;

// 5 s of a 440 Hz sine at half scale, raw S16 (little-endian, as the machine) mono 48 kHz.
function writeTone(path) {
    const samples = new Int16Array(5 * RATE);
    for (let i = 0; i < samples.length; i++)
        samples[i] = Math.round(16384 * Math.sin(2 * Math.PI * 440 * i / RATE));
    GLib.file_set_contents(path, new Uint8Array(samples.buffer));
}

function levelsNotify(directory, loop) {
    const tone = GLib.build_filenamev([directory, 'tone.raw']);
    writeTone(tone);
    const microphone = `pcm.vn_mic { type file slave.pcm { type null } file "/dev/null" infile "${tone}" format raw }`;
    const recorder = Voicenote.Recorder.new('vn_mic', microphone, directory);
    check(recorder.levels.get_type_string() === 'ad', `type ${recorder.levels.get_type_string()}`);
    check(recorder.levels.deepUnpack().length === 0, 'empty before the take');
    const seen = [];
    let finished = null;
    recorder.connect('notify::levels', () => seen.push(recorder.levels.deepUnpack()));
    recorder.connect('notify::duration', () => loop.quit());
    recorder.connect('finished', (_recorder, path) => {
        finished = path;
        loop.quit();
    });
    recorder.begin();
    check(runUntil(loop, () => recorder.duration >= 1.0), `1 s recorded within ${WAIT_S} s`);
    recorder.stop();
    check(runUntil(loop, () => finished !== null), `finished within ${WAIT_S} s`);
    GLib.unlink(finished);

    check(seen.length > 0, 'notified');
    let before = [];
    for (const levels of seen) {
        check(JSON.stringify(levels) !== JSON.stringify(before), `a change: ${JSON.stringify(levels)}`);
        check(levels.length <= 40 && levels.every(level => level >= 0 && level <= 1), JSON.stringify(levels));
        before = levels;
    }
    const fullest = seen.reduce((a, b) => b.length > a.length ? b : a);
    check(fullest.length >= 10 && fullest[fullest.length - 1] > 0.05, `1 s of the tone's level: ${JSON.stringify(fullest)}`);
    GLib.unlink(tone);
}

const directory = GLib.dir_make_tmp('vn-gi-gjs-levels-XXXXXX');
let status = 0;
try {
    levelsNotify(directory, new GLib.MainLoop(null, false));
    print('ok levels-notify');
} catch (e) {
    printerr(`FAIL: ${e.message}\n${e.stack}`);
    status = 1;
} finally {
    GLib.rmdir(directory);
}
System.exit(status);
