#include "manual_clock.hpp"

#include "failure.hpp"

namespace voicenote_qml {

ManualClock::ManualClock(QObject *parent) : QObject(parent), clock_(std::make_unique<voicenote::manual_clock>()) {}

ManualClock::~ManualClock() = default;

void ManualClock::advance(qreal seconds) {
    if (attempt(this, [&] { clock_->advance(voicenote::seconds(seconds)); })) {
        elapsed_ += seconds;
        Q_EMIT elapsedChanged();
    }
}

}  // namespace voicenote_qml
