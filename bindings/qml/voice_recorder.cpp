#include "voice_recorder.hpp"

#include "event_bridge.hpp"
#include "failure.hpp"

namespace voicenote_qml {

namespace {
constexpr int kMaxLevelCount = 1000;
}

VoiceRecorder::VoiceRecorder(QObject *parent) : QObject(parent) {}

VoiceRecorder::~VoiceRecorder() = default;

bool VoiceRecorder::refuseOnceMade(const char *setting) {
    if (!recorder_) return false;
    Q_EMIT failed(statusName(VN_E_MISUSE), QStringLiteral("%1 is read when the recorder is made; it is made already")
                                               .arg(QLatin1String(setting)));
    return true;
}

void VoiceRecorder::setDirectory(const QString &directory) {
    if (directory == directory_ || refuseOnceMade("directory")) return;
    directory_ = directory;
    Q_EMIT directoryChanged();
}

void VoiceRecorder::setDevice(const QString &device) {
    if (device == device_ || refuseOnceMade("device")) return;
    device_ = device;
    Q_EMIT deviceChanged();
}

void VoiceRecorder::setDeviceConfiguration(const QString &configuration) {
    if (configuration == deviceConfiguration_ || refuseOnceMade("deviceConfiguration")) return;
    deviceConfiguration_ = configuration;
    Q_EMIT deviceConfigurationChanged();
}

void VoiceRecorder::setLevelCount(int count) {
    if (count < 1 || count > kMaxLevelCount) {
        Q_EMIT failed(statusName(VN_E_INVALID_ARG),
                      QStringLiteral("levelCount must be 1…%1, not %2").arg(kMaxLevelCount).arg(count));
        return;
    }
    if (count == levelCount_) return;
    levelCount_ = count;
    Q_EMIT levelCountChanged();
}

std::shared_ptr<voicenote::recorder> VoiceRecorder::shared() {
    if (recorder_) return recorder_;
    attempt(this, [&] {
        voicenote::recorder_options options;
        if (!directory_.isEmpty()) options.directory = directory_.toStdString();
        if (!device_.isEmpty()) options.device = device_.toStdString();
        if (!deviceConfiguration_.isEmpty()) options.device_configuration = deviceConfiguration_.toStdString();
        auto made = makeBridged<voicenote::recorder>(options);
        subscription_ = made->subscribe([this](const voicenote::recorder_event &event) { dispatchEvent(event); });
        recorder_ = std::move(made);
    });
    return recorder_;
}

void VoiceRecorder::apply(const voicenote::recorder_context &context) {
    auto state = static_cast<State>(context.state);
    if (state != state_) {
        state_ = state;
        Q_EMIT stateChanged();
    }
    if (context.duration.count() != duration_) {
        duration_ = context.duration.count();
        Q_EMIT durationChanged();
    }
    if (context.average_power != averagePower_) {
        averagePower_ = context.average_power;
        Q_EMIT averagePowerChanged();
    }
    if (context.peak_power != peakPower_) {
        peakPower_ = context.peak_power;
        Q_EMIT peakPowerChanged();
    }
    QString path = QString::fromStdString(context.path);
    if (path != path_) {
        path_ = path;
        Q_EMIT pathChanged();
    }
    QList<qreal> levels;
    attempt(this, [&] { levels = toRealList(recorder_->levels(static_cast<std::size_t>(levelCount_))); });
    if (levels != levels_) {
        levels_ = levels;
        Q_EMIT levelsChanged();
    }
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
