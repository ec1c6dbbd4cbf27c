#include "voice_player.hpp"

#include "event_bridge.hpp"
#include "failure.hpp"
#include "properties.hpp"

namespace voicenote_qml {

VoicePlayer::VoicePlayer(QObject *parent) : QObject(parent) {}

VoicePlayer::~VoicePlayer() = default;

void VoicePlayer::setDevice(const QString &device) {
    updateSetting(this, bool(player_), "player", "device", device_, device, &VoicePlayer::deviceChanged);
}

void VoicePlayer::setDeviceConfiguration(const QString &configuration) {
    updateSetting(this, bool(player_), "player", "deviceConfiguration", deviceConfiguration_, configuration,
                  &VoicePlayer::deviceConfigurationChanged);
}

void VoicePlayer::setMprisIdentity(const QString &identity) {
    updateSetting(this, bool(player_), "player", "mprisIdentity", mprisIdentity_, identity,
                  &VoicePlayer::mprisIdentityChanged);
}

void VoicePlayer::setMprisDesktopEntry(const QString &entry) {
    updateSetting(this, bool(player_), "player", "mprisDesktopEntry", mprisDesktopEntry_, entry,
                  &VoicePlayer::mprisDesktopEntryChanged);
}

void VoicePlayer::setPauseOtherPlayers(bool pause) {
    updateSetting(this, bool(player_), "player", "pauseOtherPlayers", pauseOtherPlayers_, pause,
                  &VoicePlayer::pauseOtherPlayersChanged);
}

void VoicePlayer::setStreamRole(const QString &role) {
    updateSetting(this, bool(player_), "player", "streamRole", streamRole_, role, &VoicePlayer::streamRoleChanged);
}

void VoicePlayer::setMetadata(const QString &key, const QString &title, const QString &artist, const QString &artUrl) {
    auto optional = [](const QString &text) {
        return text.isEmpty() ? std::nullopt : std::optional<std::string>(text.toStdString());
    };
    if (auto player = shared())
        attempt(this, [&] { player->set_metadata(key.toStdString(), optional(title), optional(artist), optional(artUrl)); });
}

void VoicePlayer::componentComplete() { shared(); }

std::shared_ptr<voicenote::player> VoicePlayer::shared() {
    if (player_) return player_;
    attempt(this, [&] {
        voicenote::player_options options;
        if (!device_.isEmpty()) options.device = device_.toStdString();
        if (!deviceConfiguration_.isEmpty()) options.device_configuration = deviceConfiguration_.toStdString();
        if (!mprisIdentity_.isEmpty()) options.mpris = mprisIdentity_.toStdString();
        if (!mprisDesktopEntry_.isEmpty()) options.mpris_desktop_entry = mprisDesktopEntry_.toStdString();
        if (pauseOtherPlayers_) options.pause_other_players = true;
        if (!streamRole_.isEmpty()) options.stream_role = streamRole_.toStdString();
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
    updateProperty(this, state_, static_cast<State>(context.state), &VoicePlayer::stateChanged);
    updateProperty(this, duration_, context.duration.count(), &VoicePlayer::durationChanged);
    updateProperty(this, position_, context.current_time.count(), &VoicePlayer::positionChanged);
    updateProperty(this, rate_, context.rate, &VoicePlayer::rateChanged);
    updateProperty(this, location_, QString::fromStdString(context.location), &VoicePlayer::locationChanged);
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
    case voicenote::player_event_type::listened:
        Q_EMIT listened(QString::fromStdString(event.location), QString::fromStdString(event.key));
        break;
    case voicenote::player_event_type::item_changed:
        break;
    }
    handleEvent(event);
}

void VoicePlayer::setRate(qreal rate) {
    if (auto player = shared()) attempt(this, [&] { player->set_rate(rate); });
}

void VoicePlayer::setHeaders(const QVariantMap &headers) {
    updateProperty(this, headers_, headers, &VoicePlayer::headersChanged);
}

void VoicePlayer::loadInto(voicenote::player &player, const QString &location, bool autoplay) const {
    if (isHttpUrl(location))
        player.load_url(location.toStdString(), httpOptions(headers_), std::nullopt, autoplay);
    else
        player.load(location.toStdString(), autoplay);
}

void VoicePlayer::load(const QString &location, bool autoplay) {
    if (auto player = shared()) attempt(this, [&] { loadInto(*player, location, autoplay); });
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

bool VoicePlayer::isListened(const QString &location) {
    bool listened = false;
    attempt(this, [&] { listened = voicenote::listened(location.toStdString()); });
    return listened;
}

void VoicePlayer::setListened(const QString &location, bool listened) {
    attempt(this, [&] { voicenote::set_listened(location.toStdString(), listened); });
}

}  // namespace voicenote_qml
