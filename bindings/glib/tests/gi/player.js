// VnPlayer through GObject Introspection from JavaScript (gjs, run as an ES module: `gjs -m player.js`).
//
// Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. The note is a 1 s
// tone made by sox and encoded by opusenc in a temporary directory; the speaker is ALSA's `file` plugin over `null`
// (mono S16 at 48 kHz, not paced), so the bytes it wrote say how much played.
// - plays to finished: notify::state reaches PLAYING, then `finished` arrives with the location; the speaker got the
//   note's duration.
// - a missing file fails: `failed` with a GLib.Error in the vn-error-quark domain, code VN_ERROR_NOT_FOUND (-10),
//   then the state NOT_LOADED; a bad argument throws at once.
// Handlers only record (gjs logs an exception thrown in a handler and goes on); the checks run after the main loop,
// which every wait bounds with a timeout that fails the test. A failed check exits 1.
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Voicenote from 'gi://Voicenote?version=1.0';
import System from 'system';

import {WAIT_S, check, runUntil} from './support/mainloop.js';

const SPEAKER_RATE = 48000;
const VN_E_NOT_FOUND = -10; // voicenote.h

// Runs argv to its end within WAIT_S (killed after that); throws unless it exited 0.
function runChild(argv) {
    const loop = new GLib.MainLoop(null, false);
    const child = Gio.Subprocess.new(argv, Gio.SubprocessFlags.STDERR_SILENCE);
    let result = null;
    child.wait_check_async(null, (source, res) => {
        try {
            source.wait_check_finish(res);
            result = 'ok';
        } catch (e) {
            result = e.message;
        }
        loop.quit();
    });
    if (!runUntil(loop, () => result !== null)) {
        child.force_exit();
        throw new Error(`${argv[0]} did not end within ${WAIT_S} s`);
    }
    check(result === 'ok', `${argv.join(' ')}: ${result}`);
}

// A player on a file speaker writing raw mono S16 at 48 kHz to `output`, and a log of all it says, in order.
function speakerPlayer(output, loop) {
    const configuration = `pcm.vn_spk { type file slave.pcm { type null } file "${output}" format raw perm 0644 }`;
    const player = Voicenote.Player.new_for_device('vn_spk', configuration);
    const said = [];
    const log = {player, said, until: () => false};
    const add = entry => {
        said.push(entry);
        if (log.until())
            loop.quit();
    };
    player.connect('notify::state', p => add(['state', p.state]));
    player.connect('finished', (_p, location) => add(['finished', location]));
    player.connect('failed', (_p, error) => add(['failed', error]));
    return log;
}

function runLog(log, loop, done) {
    log.until = done;
    const ok = runUntil(loop, done);
    log.until = () => false;
    return ok;
}

const indexOf = (said, what, value) => said.findIndex(([w, v]) => w === what && v === value);

function playsToFinished(directory, note, loop) {
    const heard = GLib.build_filenamev([directory, 'heard.raw']);
    const log = speakerPlayer(heard, loop);
    check(log.player.load(note, true, -1), 'load returns true');
    check(runLog(log, loop, () => log.said.some(([what]) => what !== 'state')),
        `finished or failed within ${WAIT_S} s: ${JSON.stringify(log.said)}`);

    const said = log.said;
    check(!said.some(([what]) => what === 'failed'), `no failed: ${JSON.stringify(said)}`);
    const finished = indexOf(said, 'finished', note);
    const playing = indexOf(said, 'state', Voicenote.PlayerState.PLAYING);
    const loading = indexOf(said, 'state', Voicenote.PlayerState.LOADING);
    check(finished >= 0, `finished with the location: ${JSON.stringify(said)}`);
    check(loading >= 0 && loading < playing && playing < finished,
        `LOADING, then PLAYING, then finished: ${JSON.stringify(said)}`);

    const duration = log.player.duration;
    const size = Gio.File.new_for_path(heard).query_info('standard::size', Gio.FileQueryInfoFlags.NONE, null)
        .get_size();
    const playedS = size / 2 / SPEAKER_RATE;
    print(`duration ${duration.toFixed(3)} s, played ${playedS.toFixed(3)} s`);
    check(duration > 0.9, `duration ${duration} > 0.9 s`);
    check(Math.abs(playedS - duration) <= duration * 0.05, `played ${playedS} s within 5 % of ${duration} s`);
    log.player.run_dispose();
}

function missingFileFails(directory, loop) {
    check(Voicenote.Error.NOT_FOUND === VN_E_NOT_FOUND, `Voicenote.Error.NOT_FOUND is ${VN_E_NOT_FOUND}`);
    const log = speakerPlayer(GLib.build_filenamev([directory, 'unheard.raw']), loop);
    let thrown = null;
    try {
        log.player.load('', false, -1);
    } catch (e) {
        thrown = e;
    }
    check(thrown !== null && thrown.matches(Voicenote.error_quark(), Voicenote.Error.INVALID_ARG),
        `an empty location throws INVALID_ARG: ${thrown}`);

    const missing = GLib.build_filenamev([directory, 'missing.ogg']);
    check(log.player.load(missing, true, -1), 'load returns true');
    const failedThenNotLoaded = () => {
        const failed = log.said.findIndex(([what]) => what === 'failed');
        return failed >= 0 && indexOf(log.said.slice(failed), 'state', Voicenote.PlayerState.NOT_LOADED) >= 0;
    };
    check(runLog(log, loop, failedThenNotLoaded),
        `failed, then NOT_LOADED, within ${WAIT_S} s: ${JSON.stringify(log.said)}`);

    const errors = log.said.filter(([what]) => what === 'failed').map(([, error]) => error);
    check(errors.length === 1, `one failed: ${errors.length}`);
    const error = errors[0];
    check(error instanceof GLib.Error, `a GLib.Error: ${error}`);
    check(GLib.quark_to_string(error.domain) === 'vn-error-quark', `domain vn-error-quark: ${error.domain}`);
    check(error.code === VN_E_NOT_FOUND, `code ${VN_E_NOT_FOUND}: ${error.code}`);
    check(error.matches(Voicenote.error_quark(), Voicenote.Error.NOT_FOUND), 'matches Voicenote.Error.NOT_FOUND');
    check(error.message !== '', 'a message');
    check(indexOf(log.said, 'finished', missing) < 0, 'no finished');
    log.player.run_dispose();
}

const directory = GLib.dir_make_tmp('vn-gi-gjs-XXXXXX');
let status = 0;
try {
    const loop = new GLib.MainLoop(null, false);
    const wav = GLib.build_filenamev([directory, 'note.wav']);
    const note = GLib.build_filenamev([directory, 'note.ogg']);
    runChild(['sox', '-n', '-r', '48000', '-c', '1', '-b', '16', wav, 'synth', '1.0', 'sine', '440', 'vol', '0.5']);
    runChild(['opusenc', '--quiet', wav, note]);
    for (const [name, test] of [['plays-to-finished', () => playsToFinished(directory, note, loop)],
        ['missing-file-fails', () => missingFileFails(directory, loop)]]) {
        test();
        print(`ok ${name}`);
    }
} catch (e) {
    printerr(`FAIL: ${e.message}\n${e.stack}`);
    status = 1;
} finally {
    for (const name of ['note.wav', 'note.ogg', 'heard.raw', 'unheard.raw'])
        GLib.unlink(GLib.build_filenamev([directory, name]));
    GLib.rmdir(directory);
}
System.exit(status);
