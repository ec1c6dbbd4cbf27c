/*
 * player.vala: VnPlayer from Vala, compiled through voicenote-glib-1.vapi and the build tree's voicenote-glib-1.pc
 * (`valac --pkg voicenote-glib-1 --vapidir ...`), as a user's program would be.
 *
 * The note is a 1 s tone made by sox and encoded by opusenc in a temporary directory; the speaker is ALSA's `file`
 * plugin over `null` (mono S16 at 48 kHz, not paced), so the bytes it wrote say how much played.
 * - /gi-vala/plays-to-finished: notify::state reaches PLAYING, then `finished` arrives with the location; the
 *   speaker got the note's duration.
 * - /gi-vala/missing-file-fails: `failed` with an error in the vn-error-quark domain, code VN_ERROR_NOT_FOUND (-10),
 *   then the state NOT_LOADED; a bad argument throws at once.
 * Every wait is bounded: the main loop runs until its condition, with a timeout that fails the test.
 */
const uint WAIT_S = 30;
const int SPEAKER_RATE = 48000;
const int VN_E_NOT_FOUND = -10; /* voicenote.h */

string directory;
string note;

/* Runs the default main context until done() is true (checked first, then after each quit); false on timeout. */
delegate bool Condition ();

bool run_until (MainLoop loop, Condition done) {
    bool timed_out = false;
    uint timeout = Timeout.add_seconds (WAIT_S, () => {
        timed_out = true;
        loop.quit ();
        return Source.REMOVE;
    });
    while (!done () && !timed_out) {
        loop.run ();
    }
    if (!timed_out) {
        Source.remove (timeout);
    }
    return !timed_out;
}

/* Runs argv to its end within WAIT_S (killed after that); asserts it exited 0. */
void run_child (string[] argv) {
    var loop = new MainLoop ();
    Subprocess child;
    try {
        child = new Subprocess.newv (argv, SubprocessFlags.STDERR_SILENCE);
    } catch (Error e) {
        error ("%s: %s", argv[0], e.message);
    }
    string? result = null;
    child.wait_check_async.begin (null, (obj, res) => {
        try {
            child.wait_check_async.end (res);
            result = "ok";
        } catch (Error e) {
            result = e.message;
        }
        loop.quit ();
    });
    if (!run_until (loop, () => result != null)) {
        child.force_exit ();
        error ("%s did not end within %u s", argv[0], WAIT_S);
    }
    assert_cmpstr (result, CompareOperator.EQ, "ok");
}

/* One thing a player said. */
class Said {
    public string what; /* "state", "finished" or "failed" */
    public Voicenote.PlayerState state;
    public string? location;
    public Quark domain;
    public int code;
    public string? message;

    public Said (string what) {
        this.what = what;
    }
}

/* A player on a file speaker writing raw mono S16 at 48 kHz to `output`, and a log of all it says, in order. */
class Log {
    public Voicenote.Player player;
    public GenericArray<Said> said = new GenericArray<Said> ();
    public MainLoop loop = new MainLoop ();

    public Log (string output) {
        var configuration = "pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0644 }"
            .printf (output);
        try {
            player = new Voicenote.Player.for_device ("vn_spk", configuration);
        } catch (Error e) {
            error ("new_for_device: %s", e.message);
        }
        player.notify["state"].connect (() => {
            var entry = new Said ("state");
            entry.state = player.state;
            add (entry);
        });
        player.finished.connect ((location) => {
            var entry = new Said ("finished");
            entry.location = location;
            add (entry);
        });
        player.failed.connect ((failure) => {
            var entry = new Said ("failed");
            entry.domain = failure.domain;
            entry.code = failure.code;
            entry.message = failure.message;
            add (entry);
        });
    }

    void add (Said entry) {
        said.add (entry);
        loop.quit (); /* run_until checks its condition again */
    }

    public int find (int from, string what, Voicenote.PlayerState state = Voicenote.PlayerState.NOT_LOADED) {
        for (int i = from; i < said.length; i++) {
            if (said[i].what == what && (what != "state" || said[i].state == state)) {
                return i;
            }
        }
        return -1;
    }
}

void plays_to_finished () {
    var heard = Path.build_filename (directory, "heard.raw");
    var log = new Log (heard);
    try {
        assert_true (log.player.load (note, true, -1));
    } catch (Error e) {
        error ("load: %s", e.message);
    }
    assert_true (run_until (log.loop, () => log.find (0, "finished") >= 0 || log.find (0, "failed") >= 0));

    assert_cmpint (log.find (0, "failed"), CompareOperator.EQ, -1);
    int finished = log.find (0, "finished");
    assert_cmpstr (log.said[finished].location, CompareOperator.EQ, note);
    int loading = log.find (0, "state", Voicenote.PlayerState.LOADING);
    int playing = log.find (0, "state", Voicenote.PlayerState.PLAYING);
    assert_cmpint (loading, CompareOperator.GE, 0);
    assert_cmpint (playing, CompareOperator.GT, loading);
    assert_cmpint (finished, CompareOperator.GT, playing);

    double duration = log.player.duration;
    int64 size = 0;
    try {
        size = File.new_for_path (heard).query_info (FileAttribute.STANDARD_SIZE, FileQueryInfoFlags.NONE).get_size ();
    } catch (Error e) {
        error ("%s: %s", heard, e.message);
    }
    double played_s = (double) size / 2 / SPEAKER_RATE;
    Test.message ("duration %.3f s, played %.3f s", duration, played_s);
    assert_cmpfloat (duration, CompareOperator.GT, 0.9);
    assert_cmpfloat_with_epsilon (played_s, duration, duration * 0.05);
}

void missing_file_fails () {
    var log = new Log (Path.build_filename (directory, "unheard.raw"));
    try {
        log.player.load ("", false, -1);
        assert_not_reached ();
    } catch (Voicenote.Error.INVALID_ARG e) {
        assert_cmpstr (e.domain.to_string (), CompareOperator.EQ, "vn-error-quark");
    } catch (Error e) {
        error ("an empty location: %s, not Voicenote.Error.INVALID_ARG", e.message);
    }

    var missing = Path.build_filename (directory, "missing.ogg");
    try {
        assert_true (log.player.load (missing, true, -1));
    } catch (Error e) {
        error ("load: %s", e.message);
    }
    assert_true (run_until (log.loop, () => {
        int failed = log.find (0, "failed");
        return failed >= 0 && log.find (failed, "state", Voicenote.PlayerState.NOT_LOADED) > failed;
    }));

    int failed = log.find (0, "failed");
    assert_cmpint (log.find (failed + 1, "failed"), CompareOperator.EQ, -1);
    var entry = log.said[failed];
    assert_cmpstr (entry.domain.to_string (), CompareOperator.EQ, "vn-error-quark");
    assert_true (entry.domain == Voicenote.Error.quark ());
    assert_cmpint (entry.code, CompareOperator.EQ, VN_E_NOT_FOUND);
    var rebuilt = new GLib.Error (entry.domain, entry.code, "%s", entry.message);
    assert_true (rebuilt is Voicenote.Error.NOT_FOUND);
    assert_cmpstr (entry.message, CompareOperator.NE, "");
    assert_cmpint (log.find (0, "finished"), CompareOperator.EQ, -1);
}

int main (string[] args) {
    Test.init (ref args);
    try {
        directory = DirUtils.make_tmp ("vn-gi-vala-XXXXXX");
    } catch (Error e) {
        error ("%s", e.message);
    }
    var wav = Path.build_filename (directory, "note.wav");
    note = Path.build_filename (directory, "note.ogg");
    run_child ({"sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "1.0", "sine", "440", "vol", "0.5"});
    run_child ({"opusenc", "--quiet", wav, note});

    Test.add_func ("/gi-vala/plays-to-finished", plays_to_finished);
    Test.add_func ("/gi-vala/missing-file-fails", missing_file_fails);
    int status = Test.run ();

    foreach (var name in new string[] {"note.wav", "note.ogg", "heard.raw", "unheard.raw"}) {
        FileUtils.unlink (Path.build_filename (directory, name));
    }
    DirUtils.remove (directory);
    return status;
}
