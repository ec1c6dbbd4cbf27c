/* queue.c — plays voice messages (files or http(s) URLs) one after the other with a queue player, as a chat
 * client plays a thread's voice messages in a row.
 *
 *   queue [--device NAME [--device-config ALSA_CONFIG_FILE]] FILE_OR_URL...
 *
 * Shows: a data source (vn_player_set_data_source): a hook the player calls on its own thread, with no lock held,
 * to ask which location follows the current one; it answers with vn_queue_answer_set_location() during the call,
 * or sets nothing to end the queue. The hook may be asked several times about one item (ahead of its end, when its
 * audio is decoded, at its end), so it answers from the current location, the same way each time. The player plays
 * the answers back to back and sends VN_PLAYER_EVENT_ITEM_CHANGED (printed as "playing LOCATION") for each item,
 * then LISTENED ("listened LOCATION": heard to 90 % or to its end, the moment a chat client sends its read receipt
 * or played marker; vn_listened() tells it later, in any process) and FINISHED; an item that cannot be loaded is a
 * FAILED event (printed on stderr) and the queue goes on with the item after it. `release` runs once after the hook's last call. The main thread waits with a condition variable
 * until the item the hook ended the queue on has finished or failed, and the player is stopped (or not loaded).
 * Items are told apart by location: list each location once.
 * With no --device it plays to the default ALSA device; tests pass a file speaker (ALSA's file plugin), defined in
 * ALSA_CONFIG_FILE, whose text is handed to the library (vn_player_options_set_device).
 *
 * Build:  cc queue.c $(pkg-config --cflags --libs voicenote) -pthread -o queue
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(queue PRIVATE voicenote::voicenote)
 * Exit status: 0 when every item played to its end, 1 when one failed (or the player went silent for 30 s), 2 for
 * bad arguments.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under strict C */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <voicenote.h>

/* How long the player may stay silent (no event, no question) before the sample gives up. */
#define STALL_SECONDS 30
#define LOCATION_SIZE 4096

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    char *const *items;          /* the locations, in order */
    int count;
    int position;                /* the index of the item the hook was last asked about */
    char ended[LOCATION_SIZE];   /* the item after which the hook answered nothing; "" until then */
    char current[LOCATION_SIZE]; /* the item of the last ITEM_CHANGED */
    int current_done;            /* it finished or failed */
    int state;                   /* of the last context */
    int failures;                /* FAILED events */
    unsigned long activity;      /* events and questions, to tell a stall from progress */
} queue;

/* The data source: the item after the current one, searched from the last position (the hook is asked about the
 * current item, or the one that just failed, several times). */
static void next_item(void *user_data, const char *current_location, const char *current_key, vn_queue_answer *answer) {
    (void)current_key; /* the absolute path, or a URL's key: this list is of locations */
    queue *q = user_data;
    pthread_mutex_lock(&q->mutex);
    int at = q->position;
    while (at < q->count && strcmp(q->items[at], current_location) != 0) at++;
    if (at < q->count) q->position = at;
    const char *next = at + 1 < q->count ? q->items[at + 1] : NULL;
    if (next == NULL) snprintf(q->ended, sizeof q->ended, "%s", current_location); /* the end of the list */
    q->activity++;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->mutex);
    /* The library copies the location; this answer is valid only during this call. */
    if (next != NULL && vn_queue_answer_set_location(answer, next) != VN_OK)
        fprintf(stderr, "queue: cannot answer %s: %s\n", next, vn_last_error_message());
}

static void on_event(void *user_data, const vn_player_event *event) {
    queue *q = user_data;
    pthread_mutex_lock(&q->mutex);
    q->activity++;
    switch (event->type) {
    case VN_PLAYER_EVENT_ITEM_CHANGED:
        snprintf(q->current, sizeof q->current, "%s", event->location);
        q->current_done = 0;
        printf("playing %s\n", event->location);
        break;
    case VN_PLAYER_EVENT_LISTENED:
        printf("listened %s\n", event->location);
        break;
    case VN_PLAYER_EVENT_FINISHED:
        q->current_done = 1;
        printf("finished %s\n", event->location);
        break;
    case VN_PLAYER_EVENT_FAILED:
        q->current_done = 1;
        q->failures++;
        fprintf(stderr, "queue: %s: %s: %s\n", q->current, vn_status_name(event->status), event->message);
        break;
    case VN_PLAYER_EVENT_CONTEXT:
        q->state = event->context.state;
        break;
    default:
        break;
    }
    fflush(stdout);
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->mutex);
}

/* The queue is over: the hook ended it after the current item, which finished or failed, and nothing plays. */
static int queue_over(const queue *q) {
    return q->ended[0] != '\0' && strcmp(q->ended, q->current) == 0 && q->current_done &&
           (q->state == VN_PLAYER_STOPPED || q->state == VN_PLAYER_NOT_LOADED);
}

/* The whole text of a small file, or NULL; the caller frees it. */
static char *read_text(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    char *text = calloc(1, 65536);
    size_t length = text ? fread(text, 1, 65535, file) : 0;
    fclose(file);
    if (text) text[length] = '\0';
    return text;
}

static int fail(const char *what, int status) {
    fprintf(stderr, "queue: %s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status), vn_last_error_message());
    return 1;
}

static int usage(const char *problem) {
    if (problem != NULL) fprintf(stderr, "queue: %s\n", problem);
    fprintf(stderr, "usage: queue [--device NAME [--device-config ALSA_CONFIG_FILE]] FILE_OR_URL...\n");
    return 2;
}

/* A player on the chosen device; NULL after reporting a failure. */
static vn_player *create_player(const char *device, const char *configuration) {
    vn_player_options *options = NULL;
    vn_player *player = NULL;
    int status = vn_player_options_create(&options);
    if (status != VN_OK) {
        fail("vn_player_options_create", status);
        return NULL;
    }
    if (device != NULL && (status = vn_player_options_set_device(options, device, configuration)) != VN_OK)
        fail("vn_player_options_set_device", status);
    else if ((status = vn_player_create(options, &player)) != VN_OK)
        fail("vn_player_create", status);
    vn_player_options_destroy(options); /* the player keeps its own copy */
    return player;
}

int main(int argc, char **argv) {
    const char *device = NULL, *config_path = NULL;
    char **items = calloc((size_t)argc, sizeof *items);
    int count = 0;
    if (items == NULL) return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 || strcmp(argv[i], "--device-config") == 0) {
            if (i + 1 >= argc) return usage("an option lacks its value");
            if (strcmp(argv[i], "--device") == 0) device = argv[++i];
            else config_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage("unknown option");
        } else {
            items[count++] = argv[i];
        }
    }
    if (count == 0) return usage(NULL);
    if (config_path != NULL && device == NULL) return usage("--device-config needs --device NAME");
    char *configuration = NULL;
    if (config_path != NULL && (configuration = read_text(config_path)) == NULL) {
        fprintf(stderr, "queue: cannot read %s\n", config_path);
        return 2;
    }
    vn_player *player = create_player(device, configuration);
    free(configuration); /* the options copied it */
    if (player == NULL) return 1;

    queue q = {.mutex = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER, .items = items, .count = count,
               .state = -1};
    int status = vn_player_subscribe(player, on_event, &q, NULL, NULL);
    if (status == VN_OK) status = vn_player_set_data_source(player, next_item, &q, NULL); /* `q` outlives the player */
    if (status != VN_OK) {
        vn_player_destroy(player);
        return fail("setting up the queue", status);
    }
    /* The first item is the host's load; every other one is the data source's answer. Returns at once. */
    if ((status = vn_player_load(player, items[0], 1, -1)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_load", status);
    }

    /* Wait for the end of the queue; bounded: give up when nothing at all happened for STALL_SECONDS. */
    pthread_mutex_lock(&q.mutex);
    int waited = 0;
    while (!queue_over(&q) && waited != ETIMEDOUT) {
        unsigned long seen = q.activity;
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += STALL_SECONDS;
        while (!queue_over(&q) && q.activity == seen && waited != ETIMEDOUT)
            waited = pthread_cond_timedwait(&q.changed, &q.mutex, &deadline);
    }
    int over = queue_over(&q), failures = q.failures;
    pthread_mutex_unlock(&q.mutex);
    vn_player_destroy(player); /* sound stops, the device closes; no callback or hook call runs after this */
    free(items);
    if (!over) {
        fprintf(stderr, "queue: nothing happened for %d s; giving up\n", STALL_SECONDS);
        return 1;
    }
    return failures == 0 ? 0 : 1;
}
