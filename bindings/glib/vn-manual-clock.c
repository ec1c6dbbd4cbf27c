/*
 * vn-manual-clock.c: VnManualClock, a GObject over vn_manual_clock (no events: nothing to bridge).
 */
#include "vn-manual-clock.h"

#include "vn-error.h"
#include "vn-handles.h"

struct _VnManualClock {
    GObject parent_instance;
    vn_manual_clock *handle;
};

static void vng_manual_clock_initable_init(GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(VnManualClock, vng_manual_clock, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, vng_manual_clock_initable_init))

static gboolean vng_manual_clock_initable_init_instance(GInitable *initable, GCancellable *cancellable,
                                                        GError **error) {
    (void)cancellable;
    VnManualClock *self = VNG_MANUAL_CLOCK(initable);
    g_return_val_if_fail(self->handle == NULL, FALSE);
    return vng_error_set_from_status(error, vn_manual_clock_create(&self->handle));
}

static void vng_manual_clock_initable_init(GInitableIface *iface) {
    iface->init = vng_manual_clock_initable_init_instance;
}

/* The flows made with it keep the library's clock alive until they are destroyed. */
static void vng_manual_clock_dispose(GObject *object) {
    VnManualClock *self = VNG_MANUAL_CLOCK(object);
    g_clear_pointer(&self->handle, vn_manual_clock_destroy);
    G_OBJECT_CLASS(vng_manual_clock_parent_class)->dispose(object);
}

static void vng_manual_clock_class_init(VnManualClockClass *klass) {
    G_OBJECT_CLASS(klass)->dispose = vng_manual_clock_dispose;
}

static void vng_manual_clock_init(VnManualClock *self) {
    (void)self;
}

VnManualClock *vng_manual_clock_new(GError **error) {
    return g_initable_new(VNG_TYPE_MANUAL_CLOCK, NULL, error, NULL);
}

gboolean vng_manual_clock_advance(VnManualClock *self, gdouble seconds, GError **error) {
    g_return_val_if_fail(VNG_IS_MANUAL_CLOCK(self), FALSE);
    return vng_error_set_from_status(error, vn_manual_clock_advance(self->handle, seconds));
}

vn_manual_clock *vng_manual_clock_handle(VnManualClock *clock) {
    return clock->handle;
}
