/* event_bridge.hpp — private: the one voicenote::event_loop of a thread, watched by a QSocketNotifier.
 *
 * Every Voicenote object made on a thread (the GUI thread, for QML) delivers its events through that thread's
 * bridge: the library queues them on the loop, its descriptor becomes readable, Qt's event loop wakes the notifier
 * and the bridge runs voicenote::event_loop::dispatch() — so every callback, and every signal and property change
 * they cause, happens on the thread the object lives on, inside Qt's own loop, and nothing polls.
 *
 * The bridge is shared (std::shared_ptr): each object holds it, so the loop outlives every library object made with
 * it, and the last holder gone takes it away — also when that happens inside a dispatch (an object destroyed in its
 * own signal handler): the bridge keeps itself alive until the dispatch returns.
 */
#ifndef VOICENOTE_QML_EVENT_BRIDGE_HPP
#define VOICENOTE_QML_EVENT_BRIDGE_HPP

#include <voicenote.hpp>

#include <QSocketNotifier>

#include <memory>

namespace voicenote_qml {

class EventBridge : public std::enable_shared_from_this<EventBridge> {
public:
    /** The calling thread's bridge, made when the thread has none. Throws voicenote::error when no loop can be made. */
    static std::shared_ptr<EventBridge> forCurrentThread();

    ~EventBridge();
    EventBridge(const EventBridge &) = delete;
    EventBridge &operator=(const EventBridge &) = delete;

    /** The loop, for the options of the objects that deliver through it. */
    voicenote::event_loop &loop() { return loop_; }

private:
    EventBridge();
    void readable();

    voicenote::event_loop loop_;
    QSocketNotifier *notifier_;  // owned; deleted later when the bridge goes inside its own activation
    bool inActivation_ = false;
};

/**
 * A library object (voicenote::player, recorder, flow) that keeps its thread's bridge alive: the bridge is declared
 * first, so it is destroyed after the object. Shared so that a flow keeps the recorder and player it uses.
 */
template <class Object>
struct Bridged {
    std::shared_ptr<EventBridge> bridge;
    Object object;

    template <class... Arguments>
    explicit Bridged(std::shared_ptr<EventBridge> from, Arguments &&...arguments)
        : bridge(std::move(from)), object(std::forward<Arguments>(arguments)...) {}
};

/** Makes `Object` from options whose `loop` is set to the current thread's bridge; the pointer keeps the bridge. */
template <class Object, class Options>
std::shared_ptr<Object> makeBridged(Options options) {
    auto bridge = EventBridge::forCurrentThread();
    options.loop = &bridge->loop();
    auto held = std::make_shared<Bridged<Object>>(bridge, options);
    return std::shared_ptr<Object>(held, &held->object);
}

}  // namespace voicenote_qml

#endif
