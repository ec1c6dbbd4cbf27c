#include "recording_flow.hpp"

#include "event_bridge.hpp"
#include "failure.hpp"
#include "properties.hpp"
#include "voice_player.hpp"
#include "voice_recorder.hpp"

#include <QFile>
#include <QVariantMap>

#include <optional>
#include <string>
#include <string_view>

namespace voicenote_qml {

RecordingFlow::RecordingFlow(QObject *parent) : QObject(parent) {}

RecordingFlow::~RecordingFlow() = default;

void RecordingFlow::setRecorder(VoiceRecorder *recorder) {
    updateSetting(this, bool(flow_), "flow", "recorder", recorder_, QPointer<VoiceRecorder>(recorder),
                  &RecordingFlow::recorderChanged);
}

void RecordingFlow::setPlayer(VoicePlayer *player) {
    updateSetting(this, bool(flow_), "flow", "player", player_, QPointer<VoicePlayer>(player),
                  &RecordingFlow::playerChanged);
}

void RecordingFlow::setClock(ManualClock *clock) {
    updateSetting(this, bool(flow_), "flow", "clock", clock_, QPointer<ManualClock>(clock),
                  &RecordingFlow::clockChanged);
}

void RecordingFlow::componentComplete() { ensure(); }

voicenote::flow *RecordingFlow::ensure() {
    if (flow_) return flow_.get();
    if (!recorder_ || !player_) {
        Q_EMIT failed(statusName(VN_E_MISUSE), QStringLiteral("a RecordingFlow needs a recorder and a player"));
        return nullptr;
    }
    auto recorder = recorder_->shared();  // each emits its own failed when it cannot be made
    auto player = player_->shared();
    if (!recorder || !player) {
        Q_EMIT failed(statusName(VN_E_MISUSE), QStringLiteral("the flow's recorder or player could not be made"));
        return nullptr;
    }
    attempt(this, [&] {
        auto bridge = EventBridge::forCurrentThread();
        voicenote::flow_options options;
        options.toggle_mode = toggleMode_;
        options.key_inputs = keyInputs_;
        options.confirmation_required = confirmationRequired_;
        options.times = voicenote::flow_times{voicenote::seconds(minimumPress_), voicenote::seconds(tipDuration_)};
        options.distances = voicenote::flow_distances{cancelDistance_, lockDistance_};
        options.loop = &bridge->loop();
        options.clock = clock_ ? clock_->clock() : nullptr;  // the flow keeps the library's clock alive
        if (!draftKey_.isEmpty()) options.draft_key = draftKey_.toStdString();
        if (!draftsDirectory_.isEmpty()) options.drafts_directory = QFile::encodeName(draftsDirectory_).toStdString();
        auto made = std::make_unique<voicenote::flow>(*recorder, *player, options);
        // The current view first, then every event, each in a dispatch on this thread.
        subscription_ = made->subscribe([this](const voicenote::flow_event &event) { dispatchEvent(event); });
        libraryRecorder_ = std::move(recorder);
        libraryPlayer_ = std::move(player);
        bridge_ = std::move(bridge);
        flow_ = std::move(made);
    });
    return flow_.get();
}

void RecordingFlow::dispatchEvent(const voicenote::flow_event &event) {
    const QString path = QString::fromStdString(event.path);
    switch (event.type) {
    case voicenote::flow_event_type::view:
        applyView(event.view);
        break;
    case voicenote::flow_event_type::attachment_ready:
        Q_EMIT attachmentReady(path, event.duration.count(), toRealList(event.waveform),
                               QString::fromStdString(event.payload_json));
        break;
    case voicenote::flow_event_type::publish:
        Q_EMIT publish(path, event.duration.count(), toRealList(event.waveform),
                       QString::fromStdString(event.payload_json));
        break;
    case voicenote::flow_event_type::failed:
        Q_EMIT failed(statusName(event.status), QString::fromStdString(event.message));
        break;
    case voicenote::flow_event_type::trimmed:
        Q_EMIT trimmed(statusName(event.status), path, event.duration.count());
        break;
    case voicenote::flow_event_type::too_short:
        Q_EMIT tooShort(event.duration.count());
        break;
    case voicenote::flow_event_type::parked:
        Q_EMIT parked(path, event.duration.count(), toRealList(event.waveform),
                      QString::fromStdString(event.payload_json));
        break;
    }
}

void RecordingFlow::applyView(const voicenote::flow_view &view) {
    const auto stateBefore = state();
    const auto durationBefore = duration();
    const auto levelsBefore = levels();
    const auto slideToCancelAlphaBefore = slideToCancelAlpha();
    const auto lockPaddingBefore = lockPadding();
    const auto chevronAlphaBefore = chevronAlpha();
    const auto tipVisibleBefore = tipVisible();
    const auto previewPositionBefore = previewPosition();
    const auto previewPlayingBefore = previewPlaying();
    const auto waveformBefore = waveform();
    const auto trimStartBefore = trimStart();
    const auto trimEndBefore = trimEnd();
    const auto toggledBefore = toggled();
    const auto accessibleDescriptionBefore = accessibleDescription();
    view_ = view;
    levels_ = toRealList(view.levels);
    waveform_ = toRealList(view.waveform);
    accessibleDescription_ = QString::fromStdString(view.accessible_description);
    if (state() != stateBefore) Q_EMIT stateChanged();
    if (duration() != durationBefore) Q_EMIT durationChanged();
    if (levels() != levelsBefore) Q_EMIT levelsChanged();
    if (slideToCancelAlpha() != slideToCancelAlphaBefore) Q_EMIT slideToCancelAlphaChanged();
    if (lockPadding() != lockPaddingBefore) Q_EMIT lockPaddingChanged();
    if (chevronAlpha() != chevronAlphaBefore) Q_EMIT chevronAlphaChanged();
    if (tipVisible() != tipVisibleBefore) Q_EMIT tipVisibleChanged();
    if (previewPosition() != previewPositionBefore) Q_EMIT previewPositionChanged();
    if (previewPlaying() != previewPlayingBefore) Q_EMIT previewPlayingChanged();
    if (waveform() != waveformBefore) Q_EMIT waveformChanged();
    if (trimStart() != trimStartBefore) Q_EMIT trimStartChanged();
    if (trimEnd() != trimEndBefore) Q_EMIT trimEndChanged();
    if (toggled() != toggledBefore) Q_EMIT toggledChanged();
    if (accessibleDescription() != accessibleDescriptionBefore) Q_EMIT accessibleDescriptionChanged();
    Q_EMIT viewChanged();
}

template <class Call>
void RecordingFlow::input(Call &&action) {
    if (voicenote::flow *flow = ensure()) attempt(this, [&] { action(*flow); });
}

void RecordingFlow::press(qreal x, qreal y) {
    input([&](voicenote::flow &flow) { flow.press(x, y); });
}
void RecordingFlow::move(qreal x, qreal y) {
    input([&](voicenote::flow &flow) { flow.move(x, y); });
}
void RecordingFlow::release() {
    input([](voicenote::flow &flow) { flow.release(); });
}
void RecordingFlow::keyDown(Key key) {
    input([&](voicenote::flow &flow) { flow.key_down(static_cast<voicenote::flow_key>(key)); });
}
void RecordingFlow::keyUp(Key key) {
    input([&](voicenote::flow &flow) { flow.key_up(static_cast<voicenote::flow_key>(key)); });
}
void RecordingFlow::lock() {
    input([](voicenote::flow &flow) { flow.lock(); });
}
void RecordingFlow::stop() {
    input([](voicenote::flow &flow) { flow.stop(); });
}
void RecordingFlow::cancel() {
    input([](voicenote::flow &flow) { flow.cancel(); });
}
void RecordingFlow::discard() {
    input([](voicenote::flow &flow) { flow.discard(); });
}
void RecordingFlow::send() {
    input([](voicenote::flow &flow) { flow.send(); });
}
void RecordingFlow::confirm() {
    input([](voicenote::flow &flow) { flow.confirm(); });
}
void RecordingFlow::play() {
    input([](voicenote::flow &flow) { flow.play(); });
}
void RecordingFlow::pause() {
    input([](voicenote::flow &flow) { flow.pause(); });
}
void RecordingFlow::seek(qreal seconds) {
    input([&](voicenote::flow &flow) { flow.seek(voicenote::seconds(seconds)); });
}
void RecordingFlow::trim(qreal start, qreal end) {
    input([&](voicenote::flow &flow) { flow.trim(voicenote::seconds(start), voicenote::seconds(end)); });
}
void RecordingFlow::deactivate() {
    input([](voicenote::flow &flow) { flow.deactivate(); });
}
void RecordingFlow::park() {
    input([](voicenote::flow &flow) { flow.park(); });
}

namespace {
/** An optional string for the library: nullopt for an empty one (the library's default). */
std::optional<std::string> given(const QString &value, bool path) {
    if (value.isEmpty()) return std::nullopt;
    return path ? QFile::encodeName(value).toStdString() : value.toStdString();
}
}  // namespace

QVariantList RecordingFlow::drafts(const QString &directory) {
    QVariantList listed;
    attempt(this, [&] {
        const std::optional<std::string> where = given(directory, true);
        for (const voicenote::flow_draft &draft :
             voicenote::flow::drafts_list(where ? std::optional<std::string_view>(*where) : std::nullopt))
            listed.append(QVariantMap{{QStringLiteral("key"), QString::fromStdString(draft.key)},
                                      {QStringLiteral("path"), QFile::decodeName(draft.path.c_str())},
                                      {QStringLiteral("duration"), draft.duration.count()}});
    });
    return listed;
}

void RecordingFlow::clearDrafts(const QString &key, const QString &directory) {
    attempt(this, [&] {
        const std::optional<std::string> where = given(directory, true), name = given(key, false);
        voicenote::flow::drafts_clear(where ? std::optional<std::string_view>(*where) : std::nullopt,
                                      name ? std::optional<std::string_view>(*name) : std::nullopt);
    });
}

}  // namespace voicenote_qml
