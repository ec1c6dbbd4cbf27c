/* manual_clock.hpp — `ManualClock`: a clock that moves only when told to (voicenote::manual_clock), for tests and
 * scripted demos of a RecordingFlow: its timers (the minimum press, the tip's hiding) fire inside advance().
 *
 *     ManualClock { id: clock }
 *     RecordingFlow { clock: clock; recorder: VoiceRecorder {}; player: VoicePlayer {} }
 *     flow.press(0, 0); clock.advance(0.5)   // the take begins: held for the minimum press
 *
 * A flow made with the clock keeps the library's clock alive, so the two may be destroyed in either order (a clock
 * destroyed first moves no more: the flow's pending timers never fire).
 */
#ifndef VOICENOTE_QML_MANUAL_CLOCK_HPP
#define VOICENOTE_QML_MANUAL_CLOCK_HPP

#include <voicenote.hpp>

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace voicenote_qml {

class ManualClock : public QObject {
    Q_OBJECT
    QML_ELEMENT
    /** How far the clock was moved, in seconds (0 when made). */
    Q_PROPERTY(qreal elapsed READ elapsed NOTIFY elapsedChanged)

public:
    /** A clock at time 0; a failure to make it is fatal (the library is out of memory). */
    explicit ManualClock(QObject *parent = nullptr);
    ~ManualClock() override;

    qreal elapsed() const { return elapsed_; }

    /** Moves the clock forward by `seconds` (finite, ≥ 0: else failed "VN_E_INVALID_ARG"), firing every timer of its
     *  flows that falls due, in order, on this thread. Not from a handler of a signal of a flow made with this
     *  clock (it runs inside the flow's callback, where the library forbids it): call it later (Qt.callLater). */
    Q_INVOKABLE void advance(qreal seconds);

    /** The library's clock, for the flows made with it. */
    voicenote::manual_clock *clock() const { return clock_.get(); }

Q_SIGNALS:
    void elapsedChanged();
    /** A call was refused: the status's name and the library's message. */
    void failed(const QString &status, const QString &message);

private:
    std::unique_ptr<voicenote::manual_clock> clock_;
    qreal elapsed_ = 0;
};

}  // namespace voicenote_qml

#endif
