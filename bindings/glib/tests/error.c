/*
 * error.c: the VN_ERROR domain (voicenote-glib's vn-error.h) against the loaded libvoicenote.
 *
 * - The domain's quark is "vn-error-quark"; VnError has one value per status the library names, with the
 *   library's number and name (so a status the library appends fails here until VnError has it too).
 * - vng_error_set_from_status: VN_OK sets nothing; a real failure (an empty location) becomes its status as the
 *   code with the library's detail as the message; a number that is no status is VN_ERROR_INTERNAL naming it.
 */
#include <voicenote-glib.h>

static void test_quark_and_codes(void) {
    g_assert_cmpstr(g_quark_to_string(VN_ERROR), ==, "vn-error-quark");
    GEnumClass *codes = g_type_class_ref(VNG_TYPE_ERROR);
    int status = -1;
    for (; strcmp(vn_status_name(status), "VN_E_UNKNOWN") != 0; status--) {
        GEnumValue *value = g_enum_get_value(codes, status);
        g_assert_nonnull(value);
        g_assert_cmpstr(value->value_name, ==, vn_status_name(status));
    }
    g_assert_cmpint(status + 1, ==, VN_ERROR_INTERNAL);
    g_assert_null(g_enum_get_value(codes, status));
    g_type_class_unref(codes);
}

static void test_status_to_error(void) {
    GError *error = NULL;
    g_assert_true(vng_error_set_from_status(&error, VN_OK));
    g_assert_no_error(error);
    g_assert_true(vng_error_set_from_status(NULL, VN_OK));
    g_assert_false(vng_error_set_from_status(NULL, VN_E_IO));

    vn_player *player = NULL;
    g_assert_cmpint(vn_player_create(NULL, &player), ==, VN_OK);
    int status = vn_player_load(player, "", 0, -1);
    g_assert_false(vng_error_set_from_status(&error, status));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_assert_cmpstr(error->message, ==, vn_last_error_message());
    g_assert_cmpstr(error->message, !=, "");
    g_clear_error(&error);
    vn_player_destroy(player);

    g_assert_false(vng_error_set_from_status(&error, 7));
    g_assert_error(error, VN_ERROR, VN_ERROR_INTERNAL);
    g_assert_nonnull(strstr(error->message, "7"));
    g_clear_error(&error);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/error/quark-and-codes", test_quark_and_codes);
    g_test_add_func("/error/status-to-error", test_status_to_error);
    return g_test_run();
}
