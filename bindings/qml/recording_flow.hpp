/* recording_flow.hpp — `RecordingFlow`: the hold-to-record button's logic (voicenote::flow) as a QML type.
 *
 *     RecordingFlow {
 *         id: flow
 *         recorder: VoiceRecorder { directory: ... }
 *         player: VoicePlayer {}
 *         onAttachmentReady: (path, duration, waveform, payloadJson) => ...
 *     }
 *     MouseArea { onPressed: (m) => flow.press(m.x, m.y); onPositionChanged: (m) => flow.move(m.x, m.y);
 *                 onReleased: flow.release() }
 *
 * Every input is an invokable; everything a view draws is a property, each notifying its own change (a binding on
 * `state` is not re-evaluated by the levels' ten updates a second), and `viewChanged` follows every view the flow
 * sends; the flow's events are signals. The flow is made when the component is complete (or at the first input)
 * over its recorder's and player's library objects, which it keeps until it is destroyed; its settings are read then.
 */
#ifndef VOICENOTE_QML_RECORDING_FLOW_HPP
#define VOICENOTE_QML_RECORDING_FLOW_HPP

#include "manual_clock.hpp"
#include "properties.hpp"
#include "voice_player.hpp"
#include "voice_recorder.hpp"

#include <voicenote.hpp>

#include <QList>
#include <QObject>
#include <QPointer>
#include <QQmlParserStatus>
#include <QString>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace voicenote_qml {

class EventBridge;

class RecordingFlow : public QObject, public QQmlParserStatus {
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_ELEMENT
    /** The recorder takes are recorded with (required). Read when the flow is made, as the settings below. */
    Q_PROPERTY(voicenote_qml::VoiceRecorder *recorder READ recorder WRITE setRecorder NOTIFY recorderChanged)
    /** The player previews are played on (required). */
    Q_PROPERTY(voicenote_qml::VoicePlayer *player READ player WRITE setPlayer NOTIFY playerChanged)
    /** A manual clock for the flow's timers (the minimum press, the tip's hiding) instead of the monotonic clock;
     *  none by default. Read when the flow is made, as the settings below. */
    Q_PROPERTY(voicenote_qml::ManualClock *clock READ clock WRITE setClock NOTIFY clockChanged)
    /** Toggle mode: a short press starts a locked take, the next press stops it (default off). */
    Q_PROPERTY(bool toggleMode READ toggleMode WRITE setToggleMode NOTIFY settingsChanged)
    /** Whether keyDown/keyUp are understood (default off). */
    Q_PROPERTY(bool keyInputs READ keyInputs WRITE setKeyInputs NOTIFY settingsChanged)
    /** Whether a sent take waits for confirm() (default on) or `publish` follows at once. */
    Q_PROPERTY(bool confirmationRequired READ confirmationRequired WRITE setConfirmationRequired NOTIFY settingsChanged)
    /** How long the button is held before a take begins, in seconds (default 0.5). */
    Q_PROPERTY(qreal minimumPress READ minimumPress WRITE setMinimumPress NOTIFY settingsChanged)
    /** How long the tip stays shown, in seconds (default 2). */
    Q_PROPERTY(qreal tipDuration READ tipDuration WRITE setTipDuration NOTIFY settingsChanged)
    /** How far left, in pixels from the press point, cancels a take (default 75). */
    Q_PROPERTY(qreal cancelDistance READ cancelDistance WRITE setCancelDistance NOTIFY settingsChanged)
    /** How far up locks it (default 50). */
    Q_PROPERTY(qreal lockDistance READ lockDistance WRITE setLockDistance NOTIFY settingsChanged)
    /** The conversation's id for drafts, 1…100 bytes of UTF-8 (default empty: no drafts). A running take is then
     *  recorded in the drafts directory, so a crash loses at most half a second; park() keeps the take as the
     *  conversation's draft, and the next flow made with this key, in this process or another, starts in Preview
     *  with it (the view arrives once the draft was read back). Sending or discarding removes the draft. */
    Q_PROPERTY(QString draftKey READ draftKey WRITE setDraftKey NOTIFY settingsChanged)
    /** Where drafts are kept (default empty: `$XDG_DATA_HOME/voicenote/drafts`); used only with a draftKey. */
    Q_PROPERTY(QString draftsDirectory READ draftsDirectory WRITE setDraftsDirectory NOTIFY settingsChanged)

    /** The flow's state. */
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    /** Seconds recorded (Recording, Locked) or the take's length (Preview). */
    Q_PROPERTY(qreal duration READ duration NOTIFY durationChanged)
    /** Recording, Locked: the last live levels, oldest first, 0…1. */
    Q_PROPERTY(QList<qreal> levels READ levels NOTIFY levelsChanged)
    /** The "slide to cancel" label's opacity: 1 at the press point, 0 at the cancel distance. */
    Q_PROPERTY(qreal slideToCancelAlpha READ slideToCancelAlpha NOTIFY slideToCancelAlphaChanged)
    /** The lock's padding in pixels above its resting place. */
    Q_PROPERTY(qreal lockPadding READ lockPadding NOTIFY lockPaddingChanged)
    /** The chevron's opacity above the lock. */
    Q_PROPERTY(qreal chevronAlpha READ chevronAlpha NOTIFY chevronAlphaChanged)
    /** Whether the "hold to record" tip shows. */
    Q_PROPERTY(bool tipVisible READ tipVisible NOTIFY tipVisibleChanged)
    /** Preview: where the player is in the take, in seconds. */
    Q_PROPERTY(qreal previewPosition READ previewPosition NOTIFY previewPositionChanged)
    /** Preview: whether it plays. */
    Q_PROPERTY(bool previewPlaying READ previewPlaying NOTIFY previewPlayingChanged)
    /** Preview: the take's waveform, 0…1. */
    Q_PROPERTY(QList<qreal> waveform READ waveform NOTIFY waveformChanged)
    /** Preview: the start of the part that will be sent, in seconds. */
    Q_PROPERTY(qreal trimStart READ trimStart NOTIFY trimStartChanged)
    /** Preview: its end. */
    Q_PROPERTY(qreal trimEnd READ trimEnd NOTIFY trimEndChanged)
    /** Whether the take was started in toggle mode (the next press stops it). */
    Q_PROPERTY(bool toggled READ toggled NOTIFY toggledChanged)
    /** What a screen reader says for the view, e.g. "Recording, 0:07, slide left to cancel, slide up to lock". */
    Q_PROPERTY(QString accessibleDescription READ accessibleDescription NOTIFY accessibleDescriptionChanged)

public:
    /** The flow's states (voicenote::flow_state). */
    enum State {
        Idle = VN_FLOW_IDLE,              /**< The button waits. */
        ShowingTip = VN_FLOW_SHOWING_TIP, /**< Tapped, not held: the tip shows. */
        Recording = VN_FLOW_RECORDING,    /**< A take runs while the button is held. */
        Locked = VN_FLOW_LOCKED,          /**< A take runs with no finger on the button. */
        Preview = VN_FLOW_PREVIEW         /**< The finished take waits. */
    };
    Q_ENUM(State)
    /** The keys keyDown/keyUp take (voicenote::flow_key). */
    enum Key {
        RecordKey = VN_FLOW_KEY_RECORD, /**< Held like the button. */
        EscapeKey = VN_FLOW_KEY_ESCAPE, /**< Cancels a take or discards a preview. */
        EnterKey = VN_FLOW_KEY_ENTER    /**< Sends. */
    };
    Q_ENUM(Key)

    /** A flow with the library's settings, made when the component is complete. */
    explicit RecordingFlow(QObject *parent = nullptr);
    ~RecordingFlow() override;

    VoiceRecorder *recorder() const { return recorder_; }
    void setRecorder(VoiceRecorder *recorder);
    VoicePlayer *player() const { return player_; }
    void setPlayer(VoicePlayer *player);
    ManualClock *clock() const { return clock_; }
    void setClock(ManualClock *clock);
    bool toggleMode() const { return toggleMode_; }
    void setToggleMode(bool on) { setSetting(toggleMode_, on, "toggleMode"); }
    bool keyInputs() const { return keyInputs_; }
    void setKeyInputs(bool on) { setSetting(keyInputs_, on, "keyInputs"); }
    bool confirmationRequired() const { return confirmationRequired_; }
    void setConfirmationRequired(bool on) { setSetting(confirmationRequired_, on, "confirmationRequired"); }
    qreal minimumPress() const { return minimumPress_; }
    void setMinimumPress(qreal seconds) { setSetting(minimumPress_, seconds, "minimumPress"); }
    qreal tipDuration() const { return tipDuration_; }
    void setTipDuration(qreal seconds) { setSetting(tipDuration_, seconds, "tipDuration"); }
    qreal cancelDistance() const { return cancelDistance_; }
    void setCancelDistance(qreal pixels) { setSetting(cancelDistance_, pixels, "cancelDistance"); }
    qreal lockDistance() const { return lockDistance_; }
    void setLockDistance(qreal pixels) { setSetting(lockDistance_, pixels, "lockDistance"); }
    QString draftKey() const { return draftKey_; }
    void setDraftKey(const QString &key) { setSetting(draftKey_, key, "draftKey"); }
    QString draftsDirectory() const { return draftsDirectory_; }
    void setDraftsDirectory(const QString &path) { setSetting(draftsDirectory_, path, "draftsDirectory"); }

    State state() const { return static_cast<State>(view_.state); }
    qreal duration() const { return view_.duration.count(); }
    QList<qreal> levels() const { return levels_; }
    qreal slideToCancelAlpha() const { return view_.slide_to_cancel_alpha; }
    qreal lockPadding() const { return view_.lock_padding; }
    qreal chevronAlpha() const { return view_.chevron_alpha; }
    bool tipVisible() const { return view_.tip_visible; }
    qreal previewPosition() const { return view_.preview_position.count(); }
    bool previewPlaying() const { return view_.preview_playing; }
    QList<qreal> waveform() const { return waveform_; }
    qreal trimStart() const { return view_.trim_start.count(); }
    qreal trimEnd() const { return view_.trim_end.count(); }
    bool toggled() const { return view_.toggled; }
    QString accessibleDescription() const { return accessibleDescription_; }

    /** The button was pressed at (x, y), in its own pixels. */
    Q_INVOKABLE void press(qreal x, qreal y);
    /** The pointer moved to (x, y) while the button is held: left cancels, up locks. */
    Q_INVOKABLE void move(qreal x, qreal y);
    /** The button was released: a held take is sent, a short press shows the tip. */
    Q_INVOKABLE void release();
    /** A key went down (with keyInputs). */
    Q_INVOKABLE void keyDown(voicenote_qml::RecordingFlow::Key key);
    /** A key went up (with keyInputs). */
    Q_INVOKABLE void keyUp(voicenote_qml::RecordingFlow::Key key);
    /** Locks a held take. */
    Q_INVOKABLE void lock();
    /** Stops a take into preview. */
    Q_INVOKABLE void stop();
    /** Cancels a take or discards a preview; nothing otherwise. */
    Q_INVOKABLE void cancel();
    /** Deletes the take or the preview. */
    Q_INVOKABLE void discard();
    /** Hands the take over: `attachmentReady`, then `publish` unless confirmation is required. */
    Q_INVOKABLE void send();
    /** As send(), always followed by `publish`. */
    Q_INVOKABLE void confirm();
    /** Plays the preview. */
    Q_INVOKABLE void play();
    /** Pauses the preview. */
    Q_INVOKABLE void pause();
    /** Moves the preview to `seconds`. */
    Q_INVOKABLE void seek(qreal seconds);
    /** Cuts the preview to start…end seconds; `trimmed` says when it ended. */
    Q_INVOKABLE void trim(qreal start, qreal end);
    /** The view was hidden: a take stops into preview, a playing preview pauses. */
    Q_INVOKABLE void deactivate();
    /** The user left the conversation: a running take is stopped and the take kept as the conversation's draft;
     *  `parked` follows and the flow is idle; destroying the flow at once afterwards keeps the take too. Nothing
     *  happens while idle. `failed` with VN_E_MISUSE without a draftKey, VN_E_BUSY when the take is not the
     *  conversation's draft because another flow held the key when it began (it stays here). */
    Q_INVOKABLE void park();
    /** The drafts kept in `directory` (empty: the default one), by key: a list of {key, path, duration (seconds)};
     *  records that cannot be read are left out. Reads one small record per draft. Empty, and `failed`, when the
     *  directory cannot be listed. */
    Q_INVOKABLE QVariantList drafts(const QString &directory = QString());
    /** Deletes drafts, their records and their audio: `key`'s (empty: every draft) in `directory` (empty: the
     *  default one); `failed` when it cannot. */
    Q_INVOKABLE void clearDrafts(const QString &key = QString(), const QString &directory = QString());

    void classBegin() override {}
    void componentComplete() override;

Q_SIGNALS:
    void recorderChanged();
    void playerChanged();
    void clockChanged();
    void settingsChanged();
    /** The flow sent a view (after the properties that changed with it notified, each by its own signal). */
    void viewChanged();
    void stateChanged();
    void durationChanged();
    void levelsChanged();
    void slideToCancelAlphaChanged();
    void lockPaddingChanged();
    void chevronAlphaChanged();
    void tipVisibleChanged();
    void previewPositionChanged();
    void previewPlayingChanged();
    void waveformChanged();
    void trimStartChanged();
    void trimEndChanged();
    void toggledChanged();
    void accessibleDescriptionChanged();
    /** A take is ready for the composer: its file, length, waveform and Stream's `voiceRecording` payload (JSON). */
    void attachmentReady(const QString &path, qreal duration, const QList<qreal> &waveform, const QString &payloadJson);
    /** The take is to be published (the same fields). */
    void publish(const QString &path, qreal duration, const QList<qreal> &waveform, const QString &payloadJson);
    /** A trim ended: `status` "VN_OK" and the take as cut, or a failure's name and the take as it was. */
    void trimmed(const QString &status, const QString &path, qreal duration);
    /** park() kept the take as the conversation's draft (its file, where it stays, and the same fields); the flow
     *  is idle. */
    void parked(const QString &path, qreal duration, const QList<qreal> &waveform, const QString &payloadJson);
    /** The take was dropped as too short (seconds captured); show the tip. */
    void tooShort(qreal duration);
    /** A call was refused, or the recorder or player failed: the status's name and the library's message. */
    void failed(const QString &status, const QString &message);

private:
    /** Sets a setting read when the flow is made (refused once it is made). */
    template <class Value>
    void setSetting(Value &setting, Value value, const char *name) {
        updateSetting(this, bool(flow_), "flow", name, setting, value, &RecordingFlow::settingsChanged);
    }
    voicenote::flow *ensure();
    void dispatchEvent(const voicenote::flow_event &event);
    /** Takes a view the flow sent: each property that changed notifies, then viewChanged. */
    void applyView(const voicenote::flow_view &view);
    template <class Call>
    void input(Call &&action);

    QPointer<VoiceRecorder> recorder_;
    QPointer<VoicePlayer> player_;
    QPointer<ManualClock> clock_;
    bool toggleMode_ = false;
    bool keyInputs_ = false;
    bool confirmationRequired_ = true;
    qreal minimumPress_ = 0.5;
    qreal tipDuration_ = 2.0;
    qreal cancelDistance_ = 75;
    qreal lockDistance_ = 50;
    QString draftKey_;
    QString draftsDirectory_;

    voicenote::flow_view view_;
    QList<qreal> levels_;
    QList<qreal> waveform_;
    QString accessibleDescription_;

    // Declared in the order they must outlive each other: the library objects the flow uses, then the flow.
    std::shared_ptr<voicenote::recorder> libraryRecorder_;
    std::shared_ptr<voicenote::player> libraryPlayer_;
    std::shared_ptr<EventBridge> bridge_;
    std::unique_ptr<voicenote::flow> flow_;
    voicenote::subscription subscription_;
};

}  // namespace voicenote_qml

#endif
