/* CDesktopBus: the session bus through sd-bus, opened with dlopen on first use (ARCHITECTURE.md, "Heavy libraries
 * are loaded lazily"; libsystemd.so.0, Debian's libsystemd0): a connection driven by its owner's thread (poll its
 * descriptor, then process), an exported MPRIS 2 player object, and bounded calls to other players. sd-bus objects
 * are not thread-safe: every function taking a connection, or an object exported on it, is called on the one
 * thread that owns that connection. Nothing here is public: the version script exports vn_* alone. Errors are
 * negative errno values. */
#ifndef VOICENOTE_DESKTOP_BUS_H
#define VOICENOTE_DESKTOP_BUS_H

#include <stddef.h>
#include <stdint.h>

/** Loads sd-bus (libsystemd.so.0) and resolves every function voicenote calls; once per process (pthread_once).
 *  \param message on failure, receives static text naming what is missing (NULL is fine).
 *  \returns 0 when sd-bus is ready, -1 when it cannot be loaded (and never will be in this process). */
int vnbus_load(const char **message);

/** A connection to the user's session bus ($DBUS_SESSION_BUS_ADDRESS, else the user's runtime directory). */
typedef struct vnbus_connection vnbus_connection;

/** Opens a connection (sd-bus must be loaded). \returns 0, or a negative errno (no session bus: -ENOENT and the
 *  like). */
int vnbus_open(vnbus_connection **out);
/** Flushes what is queued and closes; NULL is fine. */
void vnbus_close(vnbus_connection *connection);
/** The descriptor to poll, and the poll(2) events it waits for now. */
int vnbus_descriptor(vnbus_connection *connection, short *events);
/** How long the owner may sleep before it must process again: milliseconds, or -1 for no deadline. */
int vnbus_timeout_ms(vnbus_connection *connection);
/** Handles everything that arrived (method calls run their hooks here). \returns 0, or a negative errno when the
 *  connection is lost. */
int vnbus_process(vnbus_connection *connection);
/** Takes a well-known name, never queued behind another owner. \returns 0; -EEXIST when another owns it. */
int vnbus_request_name(vnbus_connection *connection, const char *name);
/** Gives a well-known name back. */
int vnbus_release_name(vnbus_connection *connection, const char *name);

/* ------------------------------------------------------------------------------------------------------------ */
/* An MPRIS 2 player: /org/mpris/MediaPlayer2 with org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player */

/** What a media key or applet asks the player to do. */
typedef enum vnbus_mpris_command {
    VNBUS_MPRIS_PLAY,
    VNBUS_MPRIS_PAUSE,
    VNBUS_MPRIS_PLAY_PAUSE,
    VNBUS_MPRIS_STOP,
    VNBUS_MPRIS_NEXT,
    VNBUS_MPRIS_PREVIOUS,
    VNBUS_MPRIS_SEEK_BY,      /**< value: seconds to move, negative back */
    VNBUS_MPRIS_SET_POSITION, /**< value: seconds from the start (for the current track only) */
    VNBUS_MPRIS_SET_RATE,     /**< value: the rate */
    VNBUS_MPRIS_SET_VOLUME    /**< value: 0…1 */
} vnbus_mpris_command;

/** The player's side, called on the connection's thread inside vnbus_process. */
typedef struct vnbus_mpris_hooks {
    void *context;
    /** Does `command`; 0, or a negative errno that becomes the caller's error reply. */
    int (*command)(void *context, int command, double value);
    /** The position heard now, seconds. */
    double (*position)(void *context);
} vnbus_mpris_hooks;

/** PlaybackStatus values. */
enum { VNBUS_MPRIS_STOPPED = 0, VNBUS_MPRIS_PLAYING = 1, VNBUS_MPRIS_PAUSED = 2 };

/** What the properties show; the strings are copied. */
typedef struct vnbus_mpris_state {
    int status;           /**< VNBUS_MPRIS_STOPPED, _PLAYING or _PAUSED */
    double rate;          /**< 0.5…2.5 */
    double volume;        /**< 0…1 */
    double length;        /**< seconds; 0 when not known */
    uint64_t track;       /**< the item's number: its mpris:trackid is /org/voicenote/track/N */
    const char *title;    /**< xesam:title; NULL or "" for none */
    const char *artist;   /**< xesam:artist (one name: the sender); NULL or "" for none */
    const char *url;      /**< xesam:url; NULL or "" for none */
    const char *art_url;  /**< mpris:artUrl (the sender's picture); NULL or "" for none */
    int can_go_next;
    int can_go_previous;
    int can_seek;
} vnbus_mpris_state;

/** An exported MPRIS player. */
typedef struct vnbus_mpris vnbus_mpris;

/** Exports the player's object on `connection` (its name is the caller's to request). `identity` and
 *  `desktop_entry` are copied. \returns 0, or a negative errno. */
int vnbus_mpris_export(vnbus_connection *connection, const char *identity, const char *desktop_entry,
                       const vnbus_mpris_hooks *hooks, vnbus_mpris **out);
/** Shows `state`: PropertiesChanged for every property that differs from what was shown. */
int vnbus_mpris_update(vnbus_mpris *mpris, const vnbus_mpris_state *state);
/** Sends Seeked(position) (a jump the position's steady advance does not explain). */
int vnbus_mpris_seeked(vnbus_mpris *mpris, double position);
/** Removes the object and frees it; NULL is fine. */
void vnbus_mpris_unexport(vnbus_mpris *mpris);

/* ------------------------------------------------------------------------------------------------------------ */
/* Other players, through bounded calls */

/** The well-known names starting with "org.mpris.MediaPlayer2." now, in `*out` (free with vnbus_free_names).
 *  \returns how many, or a negative errno. */
int vnbus_mpris_names(vnbus_connection *connection, uint64_t timeout_us, char ***out);
/** Frees vnbus_mpris_names's list. */
void vnbus_free_names(char **names);
/** Asks every player of `names` for its PlaybackStatus at once and waits at most `timeout_us` for the answers:
 *  `statuses[i]` becomes VNBUS_MPRIS_PLAYING, _PAUSED or _STOPPED, or -1 for a player that did not answer in time
 *  (or not as an MPRIS player does). A player that hangs costs the wait, never more. \returns 0, or a negative errno
 *  when nothing could be sent. */
int vnbus_mpris_statuses(vnbus_connection *connection, char *const *names, size_t count, uint64_t timeout_us,
                         int *statuses);
/** Calls org.mpris.MediaPlayer2.Player.`method` (Pause, Play) on every player of `names` at once, waiting at most
 *  `timeout_us` for the replies: `results[i]` becomes 0, or a negative errno (-ETIMEDOUT without a reply in time).
 *  \returns 0, or a negative errno when nothing could be sent. */
int vnbus_mpris_call_all(vnbus_connection *connection, char *const *names, size_t count, const char *method,
                         uint64_t timeout_us, int *results);

#endif
