#include "voice_player.hpp"

#include "event_bridge.hpp"
#include "failure.hpp"

namespace voicenote_qml {

VoicePlayer::VoicePlayer(QObject *parent) : QObject(parent) {}

VoicePlayer::~VoicePlayer() = default;

bool VoicePlayer::refuseOnceMade(const char *setting) {
    if (!player_) return false;
    Q_EMIT failed(statusName(VN_E_MISUSE),
                  QStringLiteral("%1 is read when the player is made; it is made already").arg(QLatin1String(setting)));
    return true;
}

void VoicePlayer::setDevice(const QString &device) {
    if (device == device_ || refuseOnceMade("device")) return;
    device_ = device;
    Q_EMIT deviceChanged();
}

void VoicePlayer::setDeviceConfiguration(const QString &configuration) {
    if (configuration == deviceConfiguration_ || refuseOnceMade("deviceConfiguration")) return;
    deviceConfiguration_ = configuration;
    Q_EMIT deviceConfigurationChanged();
}

void VoicePlayer::componentComplete() { shared(); }

std::shared_ptr<voicenote::player> VoicePlayer::shared() {
    if (player_) return player_;
    attempt(this, [&] {
        voicenote::player_options options;
        if (!device_.isEmpty()) options.device = device_.toStdString();
        if (!deviceConfiguration_.isEmpty()) options.device_configuration = deviceConfiguration_.toStdString();
        adjustOptions(options);
        auto made = makeBridged<voicenote::player>(options);
        prepare(*made);
        // The current context comes first, then every event, each in a dispatch on this thread.
        subscription_ = made->subscribe([this](const voicenote::player_event &event) { dispatchEvent(event); });
        player_ = std::move(made);
    });
    return player_;
}

void VoicePlayer::apply(const voicenote::player_context &context) {
    auto state = static_cast<State>(context.state);
    if (state != state_) {
        state_ = state;
        Q_EMIT stateChanged();
    }
    if (context.duration.count() != duration_) {
        duration_ = context.duration.count();
        Q_EMIT durationChanged();
    }
    if (context.current_time.count() != position_) {
        position_ = context.current_time.count();
        Q_EMIT positionChanged();
    }
    if (context.rate != rate_) {
        rate_ = context.rate;
        Q_EMIT rateChanged();
    }
    QString location = QString::fromStdString(context.location);
    if (location != location_) {
        location_ = location;
        Q_EMIT locationChanged();
    }
}

void VoicePlayer::dispatchEvent(const voicenote::player_event &event) {
    switch (event.type) {
    case voicenote::player_event_type::context:
        apply(event.context);
        break;
    case voicenote::player_event_type::finished:
        Q_EMIT finished(QString::fromStdString(event.location));
        break;
    case voicenote::player_event_type::failed:
        Q_EMIT failed(statusName(event.status), QString::fromStdString(event.message));
        break;
    case voicenote::player_event_type::item_changed:
        break;
    }
    handleEvent(event);
}

void VoicePlayer::setRate(qreal rate) {
    if (auto player = shared()) attempt(this, [&] { player->set_rate(rate); });
}

void VoicePlayer::load(const QString &location, bool autoplay) {
    if (auto player = shared()) attempt(this, [&] { player->load(location.toStdString(), autoplay); });
}

void VoicePlayer::play() {
    if (auto player = shared()) attempt(this, [&] { player->play(); });
}

void VoicePlayer::pause() {
    if (auto player = shared()) attempt(this, [&] { player->pause(); });
}

void VoicePlayer::seek(qreal seconds) {
    if (auto player = shared()) attempt(this, [&] { player->seek(voicenote::seconds(seconds)); });
}

void VoicePlayer::stop() {
    if (auto player = shared()) attempt(this, [&] { player->stop(); });
}

}  // namespace voicenote_qml
