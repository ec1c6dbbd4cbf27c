#include "event_loop_bridge.hpp"

#include <voicenote.hpp>

#include <QtGlobal>

namespace voicenote_qt {

EventLoopBridge::EventLoopBridge(voicenote::event_loop &loop, QObject *parent)
    : QObject(parent), loop_(loop), notifier_(loop.fd(), QSocketNotifier::Read) {
    connect(&notifier_, &QSocketNotifier::activated, this, &EventLoopBridge::readable);
}

EventLoopBridge::~EventLoopBridge() {
    notifier_.setEnabled(false);  // before the loop (and its descriptor) goes
}

void EventLoopBridge::readable() {
    ++wakeups_;
    try {
        // Runs every pending callback here, on the GUI thread. The descriptor stays readable while events wait
        // (those that arrive during this call wait for the next one), so Qt calls again for them.
        std::size_t count = loop_.dispatch();
        dispatched_ += count;
        if (count > 0) Q_EMIT dispatchedEvents(count);
    } catch (const voicenote::error &e) {
        qWarning("voicenote: dispatch failed: %s", e.what());
    }
}

}  // namespace voicenote_qt
