/* CShims: the few things Swift cannot express for the core (thread-local text, eventfd, thread names, renameat2); no library
 * dependencies, so VoiceNoteCore pulls in neither ALSA nor Opus.
 * Nothing here is public: the version script exports vn_* alone, and these are named vnshim_*. */
#ifndef VOICENOTE_CSHIMS_H
#define VOICENOTE_CSHIMS_H


/** Stores this thread's last error message (copied, truncated to 1023 bytes). */
void vnshim_set_last_error(const char *message);

/** This thread's last error message; "" when none. Valid until the next vnshim_set_last_error on this thread. */
const char *vnshim_last_error(void);

/** A non-blocking, close-on-exec eventfd (sys/eventfd.h is not in Glibc's Swift module); -1 and errno on failure. */
int vnshim_eventfd(void);

/** renameat2(from, to, RENAME_NOREPLACE): fails with EEXIST instead of replacing `to` (EINVAL or ENOSYS where the
 *  file system or kernel lacks it); 0, or -1 and errno. */
int vnshim_rename_noreplace(const char *from, const char *to);

/** Names the calling thread (at most 15 bytes are kept); pthread_setname_np needs _GNU_SOURCE. */
void vnshim_set_thread_name(const char *name);

/** The CPUs this process may run on (sched_getaffinity's CPU_COUNT, which needs _GNU_SOURCE); at least 1. */
int vnshim_available_cpus(void);

#endif
