#include "event_bridge.hpp"

#include <QtGlobal>

namespace voicenote_qml {

std::shared_ptr<EventBridge> EventBridge::forCurrentThread() {
    static thread_local std::weak_ptr<EventBridge> current;
    std::shared_ptr<EventBridge> bridge = current.lock();
    if (!bridge) {
        bridge.reset(new EventBridge());
        current = bridge;
    }
    return bridge;
}

EventBridge::EventBridge() : notifier_(new QSocketNotifier(loop_.fd(), QSocketNotifier::Read)) {
    QObject::connect(notifier_, &QSocketNotifier::activated, notifier_, [this] { readable(); });
}

EventBridge::~EventBridge() {
    notifier_->setEnabled(false);  // before the loop (and its descriptor) goes
    QObject::disconnect(notifier_, nullptr, nullptr, nullptr);
    if (inActivation_) {
        notifier_->deleteLater();  // not inside its own activated() signal
    } else {
        delete notifier_;
    }
}

void EventBridge::readable() {
    // An object destroyed by a handler may be the bridge's last holder: the bridge stays until dispatch returned.
    std::shared_ptr<EventBridge> self = shared_from_this();
    inActivation_ = true;
    try {
        // Every pending callback runs here, on this thread; those queued meanwhile wake the notifier again.
        loop_.dispatch();
    } catch (const voicenote::error &e) {
        qWarning("voicenote: dispatch failed: %s", e.what());
    }
    // Still inside activated() when `self` is the last holder: the bridge is destroyed as `self` goes, below.
    inActivation_ = self.use_count() == 1;
}

}  // namespace voicenote_qml
