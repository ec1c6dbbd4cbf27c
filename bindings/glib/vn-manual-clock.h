/*
 * vn-manual-clock.h: VnManualClock, libvoicenote's manual clock as a GObject: a clock for a #VnFlow's timers that
 * moves only when told to (tests, scripted demos).
 */
#ifndef VOICENOTE_GLIB_MANUAL_CLOCK_H
#define VOICENOTE_GLIB_MANUAL_CLOCK_H

#include <gio/gio.h>
#include <voicenote.h>

G_BEGIN_DECLS

/**
 * VNG_TYPE_MANUAL_CLOCK:
 *
 * The [type@GObject.Type] of [class@Voicenote.ManualClock].
 */
#define VNG_TYPE_MANUAL_CLOCK (vng_manual_clock_get_type())

/**
 * VnManualClock:
 *
 * A clock that starts at 0 and moves only in [method@Voicenote.ManualClock.advance], for the timers of the flows made
 * with it ([property@Voicenote.Flow:clock]: the minimum press, the tip's hiding). Those timers fire inside the advance,
 * in order; what they change arrives as the flow's notifications and signals on its main context afterwards. A flow
 * keeps its clock alive.
 */
G_DECLARE_FINAL_TYPE(VnManualClock, vng_manual_clock, VNG, MANUAL_CLOCK, GObject)

/**
 * vng_manual_clock_new:
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes a manual clock at time 0.
 *
 * Returns: (transfer full) (nullable): the clock, or %NULL with @error set (%VN_ERROR domain).
 */
VnManualClock *vng_manual_clock_new(GError **error);

/**
 * vng_manual_clock_advance:
 * @self: the clock.
 * @seconds: how far to move, finite and at least 0.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Moves the clock forward, firing every timer of its flows that falls due, in order, on the calling thread. Not
 * from inside a signal handler of a flow on this clock (the library forbids advancing inside the flow's callback).
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a negative or non-finite time,
 *   %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_manual_clock_advance(VnManualClock *self, gdouble seconds, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_MANUAL_CLOCK_H */
