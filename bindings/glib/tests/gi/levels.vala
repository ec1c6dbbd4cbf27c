/*
 * levels.vala: Voicenote.Recorder's `levels` from Vala, compiled through voicenote-glib-1.vapi and the build tree's
 * voicenote-glib-1.pc, as a user's program would be.
 *
 * The microphone is ALSA's `file` plugin reading 5 s of a raw 440 Hz triangle tone (S16, 48 kHz, mono, unpaced), as
 * tests/capture-rig.h has it.
 * - /gi-vala/levels-notify: a 1 s take: `notify["levels"]` handlers read `recorder.levels`, a Variant of type "ad"
 *   (iterated as doubles); each notify a change from the one before, at most 40 values in 0…1, the fullest at least
 *   the 10 meter steps of 1 s and ending at the tone's level; an empty "ad" before the take.
 * Every wait is bounded: the default main context is iterated until its condition, under a deadline (a timeout
 * source wakes it at the end).
 */
const uint WAIT_S = 30;
const int RATE = 48000;

delegate bool Reached ();

/* Iterates the default main context until reached() or WAIT_S passed; whether it was reached. */
bool iterate_until (Reached reached) {
    int64 deadline = get_monotonic_time () + (int64) WAIT_S * 1000000;
    uint wake = Timeout.add_seconds (WAIT_S, () => Source.REMOVE);
    while (!reached () && get_monotonic_time () < deadline) {
        MainContext.default ().iteration (true);
    }
    if (get_monotonic_time () < deadline) {
        Source.remove (wake);
    }
    return reached ();
}

void levels_notify () {
    string directory;
    try {
        directory = DirUtils.make_tmp ("vn-gi-vala-levels-XXXXXX");
    } catch (Error e) {
        error ("%s", e.message);
    }
    var tone = Path.build_filename (directory, "tone.raw");
    var samples = new int16[5 * RATE];
    for (int i = 0; i < samples.length; i++) { /* a triangle, as capture-rig.h writes it (no libm) */
        int phase = (int) (((int64) i * 440 * 65536 / RATE) & 0xffff);
        samples[i] = (int16) ((phase < 32768 ? phase - 16384 : 49152 - phase) / 2);
    }
    unowned uint8[] bytes = (uint8[]) samples;
    bytes.length = samples.length * 2;
    var microphone = "pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" format raw }"
        .printf (tone);
    var seen = new GenericArray<Variant> ();
    string? finished = null;
    try {
        FileUtils.set_data (tone, bytes);
        var recorder = new Voicenote.Recorder ("vn_mic", microphone, directory);
        assert_cmpstr (recorder.levels.get_type_string (), CompareOperator.EQ, "ad");
        assert_cmpuint ((uint) recorder.levels.n_children (), CompareOperator.EQ, 0);
        recorder.notify["levels"].connect (() => seen.add (recorder.levels));
        recorder.finished.connect ((path) => finished = path);
        recorder.begin ();
        assert_true (iterate_until (() => recorder.duration >= 1.0));
        recorder.stop ();
        assert_true (iterate_until (() => finished != null));
    } catch (Error e) {
        error ("%s", e.message);
    }

    assert_cmpuint (seen.length, CompareOperator.GT, 0);
    Variant before = new Variant.array (VariantType.DOUBLE, {});
    uint most = 0;
    double newest = 0;
    foreach (var levels in seen) {
        assert_false (levels.equal (before));
        assert_cmpuint ((uint) levels.n_children (), CompareOperator.LE, 40);
        foreach (var level in levels) {
            assert_true (level.get_double () >= 0 && level.get_double () <= 1);
            if (levels.n_children () > most) {
                newest = level.get_double ();
            }
        }
        most = uint.max (most, (uint) levels.n_children ());
        before = levels;
    }
    assert_cmpuint (most, CompareOperator.GE, 10);
    assert_cmpfloat (newest, CompareOperator.GT, 0.05);
    FileUtils.unlink (finished);
    FileUtils.unlink (tone);
    DirUtils.remove (directory);
}

int main (string[] args) {
    Test.init (ref args);
    Test.add_func ("/gi-vala/levels-notify", levels_notify);
    return Test.run ();
}
