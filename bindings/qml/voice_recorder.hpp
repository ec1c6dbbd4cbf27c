/* voice_recorder.hpp — `VoiceRecorder`: a voicenote::recorder as a QML type.
 *
 *     VoiceRecorder { id: recorder; onFinished: (path, duration, waveform) => ... }
 *     recorder.begin(); ...; recorder.stop()
 *
 * The recorder is made when the component is complete (or at the first call) with `directory`, `device` and
 * `deviceConfiguration`; its events arrive on the GUI thread through the thread's event bridge.
 */
#ifndef VOICENOTE_QML_VOICE_RECORDER_HPP
#define VOICENOTE_QML_VOICE_RECORDER_HPP

#include <voicenote.hpp>

#include <QList>
#include <QObject>
#include <QQmlParserStatus>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace voicenote_qml {

class VoiceRecorder : public QObject, public QQmlParserStatus {
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_ELEMENT
    /** The directory takes are written to (created when missing); empty: the library's default under the cache
     *  directory. Read when the recorder is made; a change afterwards is refused (failed "VN_E_MISUSE"). */
    Q_PROPERTY(QString directory READ directory WRITE setDirectory NOTIFY directoryChanged)
    /** The capture device's ALSA name ("default" when empty), or a `pcm.NAME` that `deviceConfiguration` defines.
     *  Read when the recorder is made, as `directory`. */
    Q_PROPERTY(QString device READ device WRITE setDevice NOTIFY deviceChanged)
    /** ALSA configuration text defining `device` (a virtual microphone). Read when the recorder is made. */
    Q_PROPERTY(QString deviceConfiguration READ deviceConfiguration WRITE setDeviceConfiguration NOTIFY
                   deviceConfigurationChanged)
    /** Pauses the desktop's other media players (MPRIS) that are playing while a take is recorded, and resumes
     *  exactly those after; false by default. Read when the recorder is made, as `directory`. */
    Q_PROPERTY(bool pauseOtherPlayers READ pauseOtherPlayers WRITE setPauseOtherPlayers NOTIFY
                   pauseOtherPlayersChanged)
    /** The capture stream's role on a PulseAudio or pipewire-pulse server, its `media.role`; "" (the default) for
     *  none. "phone" lets PulseAudio switch Bluetooth headsets to their headset profile: set it when the user chose
     *  the headset's microphone. Read when the recorder is made, as `directory`. */
    Q_PROPERTY(QString streamRole READ streamRole WRITE setStreamRole NOTIFY streamRoleChanged)
    /** How many live levels `levels` holds at most, 1…1000 (default 40). */
    Q_PROPERTY(int levelCount READ levelCount WRITE setLevelCount NOTIFY levelCountChanged)
    /** What the recorder does. */
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    /** Seconds captured in this take, paused time excluded. */
    Q_PROPERTY(qreal duration READ duration NOTIFY durationChanged)
    /** RMS level of the last meter window, 0…1. */
    Q_PROPERTY(qreal averagePower READ averagePower NOTIFY averagePowerChanged)
    /** Peak level of the last meter window, 0…1. */
    Q_PROPERTY(qreal peakPower READ peakPower NOTIFY peakPowerChanged)
    /** The take's last live levels (average power per meter step, oldest first, 0…1), for live bars. */
    Q_PROPERTY(QList<qreal> levels READ levels NOTIFY levelsChanged)
    /** The file being written (`.part` while recording) or last kept; "" when none. */
    Q_PROPERTY(QString path READ path NOTIFY pathChanged)

public:
    /** A recorder's states (voicenote::recorder_state). */
    enum State {
        Stopped = VN_RECORDER_STOPPED,     /**< Not recording. */
        Recording = VN_RECORDER_RECORDING, /**< Capturing. */
        Paused = VN_RECORDER_PAUSED        /**< Paused; the take is whole on disk. */
    };
    Q_ENUM(State)

    /** A recorder with the library's defaults, made when the component is complete. */
    explicit VoiceRecorder(QObject *parent = nullptr);
    ~VoiceRecorder() override;

    QString directory() const { return directory_; }
    void setDirectory(const QString &directory);
    QString device() const { return device_; }
    void setDevice(const QString &device);
    QString deviceConfiguration() const { return deviceConfiguration_; }
    void setDeviceConfiguration(const QString &configuration);
    bool pauseOtherPlayers() const { return pauseOtherPlayers_; }
    void setPauseOtherPlayers(bool pause);
    QString streamRole() const { return streamRole_; }
    void setStreamRole(const QString &role);
    int levelCount() const { return levelCount_; }
    void setLevelCount(int count);
    State state() const { return state_; }
    qreal duration() const { return duration_; }
    qreal averagePower() const { return averagePower_; }
    qreal peakPower() const { return peakPower_; }
    QList<qreal> levels() const { return levels_; }
    QString path() const { return path_; }

    /** Opens the device and starts a take (refused while one runs: failed "VN_E_MISUSE"). */
    Q_INVOKABLE void begin();
    /** Pauses the take. */
    Q_INVOKABLE void pause();
    /** Resumes a paused take. */
    Q_INVOKABLE void resume();
    /** Stops and keeps the take: `finished` (or `tooShort`) follows. */
    Q_INVOKABLE void stop();
    /** Stops and deletes the take. */
    Q_INVOKABLE void cancel();

    /** The library's recorder, made now when it is not yet (null when that failed: `failed` was emitted). Shared: a
     *  RecordingFlow keeps the one it records with. */
    std::shared_ptr<voicenote::recorder> shared();

    void classBegin() override {}
    void componentComplete() override { shared(); }

Q_SIGNALS:
    void directoryChanged();
    void deviceChanged();
    void pauseOtherPlayersChanged();
    void streamRoleChanged();
    void deviceConfigurationChanged();
    void levelCountChanged();
    void stateChanged();
    void durationChanged();
    void averagePowerChanged();
    void peakPowerChanged();
    void levelsChanged();
    void pathChanged();
    /** A take was kept at `path`: its length in seconds and its waveform (values 0…1). */
    void finished(const QString &path, qreal duration, const QList<qreal> &waveform);
    /** A take shorter than the minimum (or with no audio) was deleted: the seconds captured. */
    void tooShort(qreal duration);
    /** The microphone was lost mid-take (`lost`: why) and the take goes on from `device`, the fallback. */
    void sourceChanged(const QString &device, const QString &lost);
    /** `remaining` seconds are left before the longest take. */
    void maximumDurationWarning(qreal remaining);
    /** The longest take was reached; `finished` follows. */
    void maximumDurationReached();
    /** A call was refused or the recorder failed: the status's name ("VN_E_DEVICE") and the library's message. */
    void failed(const QString &status, const QString &message);

private:
    void apply(const voicenote::recorder_context &context);
    void dispatchEvent(const voicenote::recorder_event &event);
    template <class Call>
    void call(Call &&action);

    QString directory_;
    QString device_;
    QString deviceConfiguration_;
    bool pauseOtherPlayers_ = false;
    QString streamRole_;
    int levelCount_ = 40;
    State state_ = Stopped;
    qreal duration_ = 0;
    qreal averagePower_ = 0;
    qreal peakPower_ = 0;
    QList<qreal> levels_;
    QString path_;
    std::shared_ptr<voicenote::recorder> recorder_;
    voicenote::subscription subscription_;  // after the recorder: ends first
};

}  // namespace voicenote_qml

#endif
