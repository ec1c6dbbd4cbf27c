/*
 * desktop.c: a player on the desktop's session bus through the C API (voicenote.h: vn_player_options_set_mpris,
 * vn_player_set_metadata, vn_player_copy_mpris_name), on a private `dbus-daemon --session` this test starts and
 * stops, with playerctl (Debian's) as the media keys and applets.
 *
 * - Made with MPRIS, an idle player is not on the bus; a loaded note (paused: the file speaker is unpaced) is, under
 *   its name, with the host's title and sender and its length; playerctl moves its position and volume and stops it;
 *   stopped, the name is gone; destroyed, nothing is left.
 * - Refusals: an empty identity, NULL handles and out-parameters, and the name of a player made without MPRIS.
 *
 * Needs dbus-daemon and playerctl on PATH (`make deps`): a missing one is a visible skip. Every wait is bounded.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"
#include "child.h"

#define WAIT_MS 10000

static char directory[256], note[320], output[320];
static char bus_address[512];
static pid_t daemon_pid = -1;
static int daemon_in = -1, daemon_out = -1;

/* Runs a command to its end (at most WAIT_MS) and returns its first output line in `line` (empty when none). */
static int run_line(char *const argv[], char *line, size_t capacity) {
    int to_child = -1, from_child = -1;
    line[0] = '\0';
    pid_t pid = spawn(argv, &to_child, &from_child);
    if (pid < 0) return 0;
    read_child(from_child, harness_now_ms() + WAIT_MS, line, capacity);
    return finish_child(pid, to_child, from_child, WAIT_MS) == 0 || line[0] != '\0';
}

/* playerctl's answer for player `name` (its name without org.mpris.MediaPlayer2.). */
static void playerctl(const char *name, const char *a, const char *b, const char *c, char *line, size_t capacity) {
    char *argv[] = {"playerctl", "-p", (char *)name, (char *)a, (char *)b, (char *)c, NULL};
    run_line(argv, line, capacity);
}

static int listed(void) {
    char line[256];
    char *argv[] = {"playerctl", "--no-messages", "--list-all", NULL};
    run_line(argv, line, sizeof line);
    return line[0] != '\0' && strstr(line, "No players") == NULL;
}

static void show_on_the_bus(vn_player_options *options) {
    EXPECT_STATUS(VN_OK, vn_player_options_set_mpris(options, "Chat Test", "org.example.Chat"));
}

/* A player on a file speaker writing `output`; on the bus as "Chat Test" when `on_bus`. */
static vn_player *mpris_player(int on_bus) { return configured_speaker_player(output, on_bus ? show_on_the_bus : NULL); }

static int exported(vn_player *player) {
    char *name = NULL;
    int on_bus = 0;
    vn_player_copy_mpris_name(player, &name, &on_bus);
    vn_free(name);
    return on_bus;
}

static int state_of(vn_player *player) {
    vn_player_context context = {.size = sizeof context};
    vn_player_get_context(player, &context);
    return context.state;
}

static double time_of(vn_player *player) {
    vn_player_context context = {.size = sizeof context};
    vn_player_get_context(player, &context);
    return context.current_time_s;
}

static void test_a_loaded_note_is_on_the_bus_and_idle_is_not(void) {
    vn_player *player = mpris_player(1);
    if (player == NULL) return;
    char *name = NULL;
    int on_bus = 1;
    EXPECT_STATUS(VN_OK, vn_player_copy_mpris_name(player, &name, &on_bus));
    if (!EXPECT(name != NULL && strncmp(name, "org.mpris.MediaPlayer2.Chat_Test.instance", 41) == 0, "name %s",
                name ? name : "NULL")) {
        vn_free(name);
        vn_player_destroy(player);
        return;
    }
    EXPECT(on_bus == 0 && !listed(), "an idle player is on the bus");
    const char *short_name = name + strlen("org.mpris.MediaPlayer2.");
    EXPECT_STATUS(VN_OK, vn_player_set_metadata(player, note, "Voice message", "Alice", NULL));
    EXPECT_STATUS(VN_OK, vn_player_load(player, note, 0, -1));
    int ok = 0;
    POLL_UNTIL(ok, exported(player) && state_of(player) == VN_PLAYER_PAUSED, 20, WAIT_MS);
    EXPECT(ok, "not on the bus once loaded");
    char line[512];
    for (long long deadline = harness_now_ms() + WAIT_MS; harness_now_ms() < deadline; delay_ms(20)) {
        playerctl(short_name, "metadata", "--format", "{{title}}|{{artist}}|{{mpris:length}}|{{status}}", line, sizeof line);
        if (strcmp(line, "Voice message|Alice|60000000|Paused") == 0) break;
    }
    EXPECT(strcmp(line, "Voice message|Alice|60000000|Paused") == 0, "metadata: %s", line);
    playerctl(short_name, "position", "30", NULL, line, sizeof line);
    POLL_UNTIL(ok, distance(time_of(player), 30) < 0.1, 20, WAIT_MS);
    EXPECT(ok, "the position is %g s, not 30", time_of(player));
    playerctl(short_name, "volume", "0.5", NULL, line, sizeof line);
    vn_player_context context = {.size = sizeof context};
    POLL_UNTIL(ok, (vn_player_get_context(player, &context), distance(context.volume, 0.5) < 1e-9), 20, WAIT_MS);
    EXPECT(ok, "the volume is %g, not 0.5", context.volume);
    playerctl(short_name, "stop", NULL, NULL, line, sizeof line);
    POLL_UNTIL(ok, state_of(player) == VN_PLAYER_STOPPED && !exported(player), 20, WAIT_MS);
    EXPECT(ok, "still on the bus after Stop");
    EXPECT(!listed(), "listed after Stop");
    vn_free(name);
    vn_player_destroy(player);
    EXPECT(!listed(), "a name was left after destroy");
}

static void test_refusals(void) {
    vn_player_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_player_options_create(&options));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_mpris(options, "", NULL));
    EXPECT_STATUS(VN_OK, vn_player_options_set_mpris(options, NULL, NULL)); /* off */
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_mpris(NULL, "X", NULL));
    vn_player_options_destroy(options);
    vn_player *plain = mpris_player(0);
    if (plain == NULL) return;
    char *name = (char *)"untouched";
    EXPECT_STATUS(VN_E_MISUSE, vn_player_copy_mpris_name(plain, &name, NULL));
    EXPECT(name == NULL, "the name was not cleared");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_copy_mpris_name(plain, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_player_set_metadata(plain, note, "t", NULL, NULL)); /* no MPRIS: nothing to show */
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_set_metadata(plain, "", "t", NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_metadata(NULL, note, "t", NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_copy_mpris_name(NULL, &name, NULL));
    vn_player_destroy(plain);
}

/* What a role does on a sound server is tested where one runs (the Swift and Python suites, with a private
 * PulseAudio and its ducking); here, what the options take. */
static void test_stream_roles_are_checked(void) {
    vn_player_options *player = NULL;
    EXPECT_STATUS(VN_OK, vn_player_options_create(&player));
    EXPECT_STATUS(VN_OK, vn_player_options_set_stream_role(player, "phone"));
    EXPECT_STATUS(VN_OK, vn_player_options_set_stream_role(player, NULL)); /* none */
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_stream_role(player, ""));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_stream_role(player, "ph\001one"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_stream_role(player, "\xc3\xa9"));
    char long_role[66];
    memset(long_role, 'a', 65);
    long_role[65] = 0;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_stream_role(player, long_role));
    long_role[64] = 0;
    EXPECT_STATUS(VN_OK, vn_player_options_set_stream_role(player, long_role));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_stream_role(NULL, "phone"));
    vn_player_options_destroy(player);
    vn_recorder_options *recorder = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_options_create(&recorder));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_stream_role(recorder, "phone"));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_stream_role(recorder, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_stream_role(recorder, ""));
    EXPECT_STATUS(VN_E_MISUSE, vn_recorder_options_set_stream_role(NULL, "phone"));
    vn_recorder_options_destroy(recorder);
}

static int setup(void) {
    snprintf(output, sizeof output, "%s/out.raw", directory);
    snprintf(note, sizeof note, "%s/note.wav", directory);
    char *sox[] = {"sox", "-n", "-r", "8000", "-c", "1", "-b", "16", note, "synth", "60", "sine", "440", NULL};
    char line[64];
    if (!run_line(sox, line, sizeof line)) return 0;
    char address_option[300];
    snprintf(address_option, sizeof address_option, "--address=unix:path=%s/bus", directory);
    char *argv[] = {"dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1", address_option, NULL};
    daemon_pid = spawn(argv, &daemon_in, &daemon_out);
    if (daemon_pid < 0 || !read_child(daemon_out, harness_now_ms() + WAIT_MS, bus_address, sizeof bus_address)) return 0;
    setenv("DBUS_SESSION_BUS_ADDRESS", bus_address, 1);
    return strncmp(bus_address, "unix:", 5) == 0;
}

static int on_path(const char *program) {
    char command[128];
    snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", program);
    return system(command) == 0;
}

int main(void) {
    harness_init("desktop");
    if (!on_path("dbus-daemon") || !on_path("playerctl") || !on_path("sox")) {
        printf("SKIP  desktop: needs dbus-daemon, playerctl and sox on PATH (make deps)\n");
        return harness_finish();
    }
    if (!temp_directory_create(directory, sizeof directory, "desktop")) return 1;
    if (!fixture_setup(setup, directory, "a private session bus and a 60 s note")) return 1;
    TEST(test_a_loaded_note_is_on_the_bus_and_idle_is_not);
    TEST(test_refusals);
    TEST(test_stream_roles_are_checked);
    kill(daemon_pid, SIGTERM);
    finish_child(daemon_pid, daemon_in, daemon_out, WAIT_MS);
    temp_directory_remove(directory);
    return harness_finish();
}
