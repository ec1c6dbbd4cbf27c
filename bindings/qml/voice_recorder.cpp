#include "voice_recorder.hpp"

#include "event_bridge.hpp"
#include "failure.hpp"
#include "properties.hpp"

namespace voicenote_qml {

namespace {
constexpr int kMaxLevelCount = 1000;
}

VoiceRecorder::VoiceRecorder(QObject *parent) : QObject(parent) {}

VoiceRecorder::~VoiceRecorder() = default;

void VoiceRecorder::setDirectory(const QString &directory) {
    updateSetting(this, bool(recorder_), "recorder", "directory", directory_, directory,
                  &VoiceRecorder::directoryChanged);
}

void VoiceRecorder::setDevice(const QString &device) {
    updateSetting(this, bool(recorder_), "recorder", "device", device_, device, &VoiceRecorder::deviceChanged);
}

void VoiceRecorder::setPauseOtherPlayers(bool pause) {
    updateSetting(this, bool(recorder_), "recorder", "pauseOtherPlayers", pauseOtherPlayers_, pause,
                  &VoiceRecorder::pauseOtherPlayersChanged);
}

void VoiceRecorder::setStreamRole(const QString &role) {
    updateSetting(this, bool(recorder_), "recorder", "streamRole", streamRole_, role, &VoiceRecorder::streamRoleChanged);
}

void VoiceRecorder::setDeviceConfiguration(const QString &configuration) {
    updateSetting(this, bool(recorder_), "recorder", "deviceConfiguration", deviceConfiguration_, configuration,
                  &VoiceRecorder::deviceConfigurationChanged);
}

void VoiceRecorder::setLevelCount(int count) {
    if (count < 1 || count > kMaxLevelCount) {
        Q_EMIT failed(statusName(VN_E_INVALID_ARG),
                      QStringLiteral("levelCount must be 1…%1, not %2").arg(kMaxLevelCount).arg(count));
        return;
    }
    updateProperty(this, levelCount_, count, &VoiceRecorder::levelCountChanged);
}

std::shared_ptr<voicenote::recorder> VoiceRecorder::shared() {
    if (recorder_) return recorder_;
    attempt(this, [&] {
        voicenote::recorder_options options;
        if (!directory_.isEmpty()) options.directory = directory_.toStdString();
        if (!device_.isEmpty()) options.device = device_.toStdString();
        if (!deviceConfiguration_.isEmpty()) options.device_configuration = deviceConfiguration_.toStdString();
        if (pauseOtherPlayers_) options.pause_other_players = true;
        if (!streamRole_.isEmpty()) options.stream_role = streamRole_.toStdString();
        auto made = makeBridged<voicenote::recorder>(options);
        subscription_ = made->subscribe([this](const voicenote::recorder_event &event) { dispatchEvent(event); });
        recorder_ = std::move(made);
    });
    return recorder_;
}

void VoiceRecorder::apply(const voicenote::recorder_context &context) {
    updateProperty(this, state_, static_cast<State>(context.state), &VoiceRecorder::stateChanged);
    updateProperty(this, duration_, context.duration.count(), &VoiceRecorder::durationChanged);
    updateProperty(this, averagePower_, qreal(context.average_power), &VoiceRecorder::averagePowerChanged);
    updateProperty(this, peakPower_, qreal(context.peak_power), &VoiceRecorder::peakPowerChanged);
    updateProperty(this, path_, QString::fromStdString(context.path), &VoiceRecorder::pathChanged);
    QList<qreal> levels;
    attempt(this, [&] { levels = toRealList(recorder_->levels(static_cast<std::size_t>(levelCount_))); });
    updateProperty(this, levels_, levels, &VoiceRecorder::levelsChanged);
}

void VoiceRecorder::dispatchEvent(const voicenote::recorder_event &event) {
    switch (event.type) {
    case voicenote::recorder_event_type::context:
        apply(event.context);
        break;
    case voicenote::recorder_event_type::finished:
        Q_EMIT finished(QString::fromStdString(event.path), event.duration.count(), toRealList(event.waveform));
        break;
    case voicenote::recorder_event_type::failed:
        Q_EMIT failed(statusName(event.status), QString::fromStdString(event.message));
        break;
    case voicenote::recorder_event_type::max_duration_warning:
        Q_EMIT maximumDurationWarning(event.remaining.count());
        break;
    case voicenote::recorder_event_type::max_duration_reached:
        Q_EMIT maximumDurationReached();
        break;
    case voicenote::recorder_event_type::too_short:
        Q_EMIT tooShort(event.duration.count());
        break;
    case voicenote::recorder_event_type::source_changed:
        Q_EMIT sourceChanged(QString::fromStdString(event.device), QString::fromStdString(event.message));
        break;
    }
}

template <class Call>
void VoiceRecorder::call(Call &&action) {
    if (auto recorder = shared()) attempt(this, [&] { action(*recorder); });
}

void VoiceRecorder::begin() {
    call([](voicenote::recorder &recorder) { recorder.begin(); });
}

void VoiceRecorder::pause() {
    call([](voicenote::recorder &recorder) { recorder.pause(); });
}

void VoiceRecorder::resume() {
    call([](voicenote::recorder &recorder) { recorder.resume(); });
}

void VoiceRecorder::stop() {
    call([](voicenote::recorder &recorder) { recorder.stop(); });
}

void VoiceRecorder::cancel() {
    call([](voicenote::recorder &recorder) { recorder.cancel(); });
}

}  // namespace voicenote_qml
