/*
 * voicenote.hpp: the C++ layer over voicenote.h — header-only C++17, over the C API and nothing else.
 *
 * - Objects own their C handles (RAII, move-only): no destroy to call, none twice.
 * - Failures throw voicenote::error (a std::system_error whose code() is in voicenote's category and compares
 *   with voicenote::errc), carrying the status and the library's detail message. Exceptions, not error codes:
 *   the C++ chat clients this layer is for (Qt and KDE applications, Telegram Desktop) build with exceptions, and
 *   one way to fail keeps every call's signature plain. A host built with -fno-exceptions uses the C API.
 * - Text is std::string / std::string_view; times are std::chrono::duration<double> (voicenote::seconds).
 * - Callbacks are std::function; subscribing returns a voicenote::subscription whose destruction ends it (and
 *   waits for a callback running on another thread, as vn_unsubscribe() does; inside its own callback it does not
 *   wait). Callbacks run on a library thread unless the object was made with a voicenote::event_loop, whose fd()
 *   the host watches (a QSocketNotifier, a GSource) to dispatch() them on its own thread. An exception escaping a
 *   callback ends the program (std::terminate), as one escaping a std::thread does.
 *
 * Link with the C library: pkg-config voicenote, or find_package(voicenote) and voicenote::voicenote in CMake.
 */
#ifndef VOICENOTE_HPP
#define VOICENOTE_HPP

#include "voicenote/core.hpp"
#include "voicenote/sources.hpp"
#include "voicenote/analysis.hpp"
#include "voicenote/recorder.hpp"
#include "voicenote/player.hpp"
#include "voicenote/queue.hpp"
#include "voicenote/flow.hpp"
#include "voicenote/attachments.hpp"
#include "voicenote/upload.hpp"
#include "voicenote/outbox.hpp"
#include "voicenote/transcript.hpp"
#include "voicenote/test_source.hpp"

#endif /* VOICENOTE_HPP */
