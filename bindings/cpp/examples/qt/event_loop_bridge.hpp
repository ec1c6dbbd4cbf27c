/* event_loop_bridge.hpp — brings a voicenote::event_loop into the Qt event loop.
 *
 * The recorder, the players and the flow are made with one voicenote::event_loop: they queue their events there,
 * and its descriptor becomes readable while events are pending. A QSocketNotifier watches that descriptor, and
 * when Qt sees it readable the bridge calls dispatch(), so every voicenote callback runs on the GUI thread, inside
 * Qt's own loop, and nothing polls.
 */
#ifndef VOICENOTE_QT_EVENT_LOOP_BRIDGE_HPP
#define VOICENOTE_QT_EVENT_LOOP_BRIDGE_HPP

#include <QObject>
#include <QSocketNotifier>

#include <cstddef>

namespace voicenote {
class event_loop;
}

namespace voicenote_qt {

class EventLoopBridge : public QObject {
    Q_OBJECT

public:
    /** Watches `loop` (which must outlive the bridge) from the thread the bridge is made on. */
    explicit EventLoopBridge(voicenote::event_loop &loop, QObject *parent = nullptr);
    ~EventLoopBridge() override;

    /** How many times the descriptor woke Qt, and how many callbacks those dispatches ran. */
    std::size_t wakeups() const { return wakeups_; }
    std::size_t dispatched() const { return dispatched_; }

Q_SIGNALS:
    /** After each dispatch that ran callbacks. */
    void dispatchedEvents(std::size_t count);

private:
    void readable();

    voicenote::event_loop &loop_;
    QSocketNotifier notifier_;
    std::size_t wakeups_ = 0;
    std::size_t dispatched_ = 0;
};

}  // namespace voicenote_qt

#endif
