/* voice_player.hpp — `VoicePlayer`: a voicenote::player as a QML type.
 *
 *     VoicePlayer { id: player; onFinished: ...; onFailed: (status, message) => ... }
 *     player.load("/path/note.ogg", true)   // a path, file:// or http(s) URL; true: play once loaded
 *
 * The player is made when the component is complete (or at the first call), with `device` and
 * `deviceConfiguration`; its events arrive on the GUI thread through the thread's event bridge and become the
 * properties' NOTIFY signals and `finished`/`failed`.
 */
#ifndef VOICENOTE_QML_VOICE_PLAYER_HPP
#define VOICENOTE_QML_VOICE_PLAYER_HPP

#include <voicenote.hpp>

#include <QObject>
#include <QQmlParserStatus>
#include <QString>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace voicenote_qml {

class VoicePlayer : public QObject, public QQmlParserStatus {
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_ELEMENT
    /** The ALSA PCM to play on ("default" when empty), or a `pcm.NAME` that `deviceConfiguration` defines. Read when
     *  the player is made; a change afterwards is refused (failed "VN_E_MISUSE"). */
    Q_PROPERTY(QString device READ device WRITE setDevice NOTIFY deviceChanged)
    /** ALSA configuration text in which `device` is looked up instead of the system's (a virtual speaker). Read when
     *  the player is made, as `device`. */
    Q_PROPERTY(QString deviceConfiguration READ deviceConfiguration WRITE setDeviceConfiguration NOTIFY
                   deviceConfigurationChanged)
    /** What the player does. */
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    /** The item's duration in seconds (its hint until known; 0 when nothing is loaded). */
    Q_PROPERTY(qreal duration READ duration NOTIFY durationChanged)
    /** What the listener hears now, in seconds of the file's time. */
    Q_PROPERTY(qreal position READ position NOTIFY positionChanged)
    /** The rate, 0.5…2.5, pitch kept; writable in every state (a value out of range: failed "VN_E_INVALID_ARG"). */
    Q_PROPERTY(qreal rate READ rate WRITE setRate NOTIFY rateChanged)
    /** The location as given to the last load ("" before any). */
    Q_PROPERTY(QString location READ location NOTIFY locationChanged)
    /** Request headers for an http(s) location, name → value (strings), e.g. ({ "Authorization": "Bearer …" }): read
     *  by each load (a QueuePlayer's too); none by default. */
    Q_PROPERTY(QVariantMap headers READ headers WRITE setHeaders NOTIFY headersChanged)
    /** Shows the player to the desktop's media keys and controls (MPRIS) under this name ("Fractal") while a note is
     *  loading, playing or paused; "" (the default): none. Read when the player is made, as `device`. */
    Q_PROPERTY(QString mprisIdentity READ mprisIdentity WRITE setMprisIdentity NOTIFY mprisIdentityChanged)
    /** With `mprisIdentity`: the host's desktop file name without `.desktop`, for its icon. Read when the player is
     *  made. */
    Q_PROPERTY(QString mprisDesktopEntry READ mprisDesktopEntry WRITE setMprisDesktopEntry NOTIFY
                   mprisDesktopEntryChanged)
    /** Pauses the desktop's other media players (MPRIS) while this player plays, and resumes exactly those after;
     *  false by default. Read when the player is made. */
    Q_PROPERTY(bool pauseOtherPlayers READ pauseOtherPlayers WRITE setPauseOtherPlayers NOTIFY
                   pauseOtherPlayersChanged)
    /** The playback stream's role on a PulseAudio or pipewire-pulse server, its `media.role`: "phone" has the
     *  server's own policies cork or duck music while a note plays; "" (the default) for none. Read when the player
     *  is made. */
    Q_PROPERTY(QString streamRole READ streamRole WRITE setStreamRole NOTIFY streamRoleChanged)

public:
    /** A player's states (voicenote::player_state). */
    enum State {
        NotLoaded = VN_PLAYER_NOT_LOADED, /**< Nothing loaded, or the last load failed. */
        Loading = VN_PLAYER_LOADING,      /**< Opening the location. */
        Paused = VN_PLAYER_PAUSED,        /**< Loaded, not sounding. */
        Playing = VN_PLAYER_PLAYING,      /**< Sounding. */
        Stopped = VN_PLAYER_STOPPED       /**< Loaded, at 0: after stop() or the end. */
    };
    Q_ENUM(State)

    /** A player with the default device, made when the component is complete. */
    explicit VoicePlayer(QObject *parent = nullptr);
    ~VoicePlayer() override;

    QString device() const { return device_; }
    void setDevice(const QString &device);
    QString deviceConfiguration() const { return deviceConfiguration_; }
    void setDeviceConfiguration(const QString &configuration);
    State state() const { return state_; }
    qreal duration() const { return duration_; }
    qreal position() const { return position_; }
    qreal rate() const { return rate_; }
    void setRate(qreal rate);
    QString location() const { return location_; }
    QVariantMap headers() const { return headers_; }
    QString mprisIdentity() const { return mprisIdentity_; }
    void setMprisIdentity(const QString &identity);
    QString mprisDesktopEntry() const { return mprisDesktopEntry_; }
    void setMprisDesktopEntry(const QString &entry);
    bool pauseOtherPlayers() const { return pauseOtherPlayers_; }
    void setPauseOtherPlayers(bool pause);
    QString streamRole() const { return streamRole_; }
    void setStreamRole(const QString &role);
    /** What the desktop's media controls show for the note under `key` (its location as loaded): the title ("" shows
     *  the file's name), the sender, the sender's picture URL. Nothing without `mprisIdentity`. */
    Q_INVOKABLE void setMetadata(const QString &key, const QString &title, const QString &artist = QString(),
                                 const QString &artUrl = QString());
    void setHeaders(const QVariantMap &headers);

    /** Loads `location` (a path, a file:// or http(s) URL) and plays it once loaded when `autoplay`; a missing or
     *  corrupt item arrives as `failed`. The location already loaded plays. */
    Q_INVOKABLE void load(const QString &location, bool autoplay = false);
    /** Plays or resumes the loaded item. */
    Q_INVOKABLE void play();
    /** Pauses. */
    Q_INVOKABLE void pause();
    /** Moves to `seconds` (clamped to the item), keeping play or pause. */
    Q_INVOKABLE void seek(qreal seconds);
    /** Stops: position 0, the item kept. */
    Q_INVOKABLE void stop();
    /** Whether the note at `location` was heard to 90 % or to its end by a player of any process (listened()). A
     *  location the library refuses: false, and `failed`. */
    Q_INVOKABLE bool isListened(const QString &location);
    /** Marks the note at `location` listened, or with false unlistened again ("mark as unplayed"); no signal. */
    Q_INVOKABLE void setListened(const QString &location, bool listened = true);

    /** The library's player, made now when it is not yet (null when that failed: `failed` was emitted). Shared: a
     *  RecordingFlow keeps the one it previews on. */
    std::shared_ptr<voicenote::player> shared();

    void classBegin() override {}
    void componentComplete() override;

Q_SIGNALS:
    void deviceChanged();
    void deviceConfigurationChanged();
    void stateChanged();
    void durationChanged();
    void positionChanged();
    void rateChanged();
    void locationChanged();
    void headersChanged();
    void mprisIdentityChanged();
    void mprisDesktopEntryChanged();
    void pauseOtherPlayersChanged();
    void streamRoleChanged();
    /** The item at `location` played to its end. */
    void finished(const QString &location);
    /** The note at `location` (its `key`) was heard to 90 % or to its end: listened now, remembered across
     *  processes; once per note, before finished(): the moment to send a read receipt or the played marker. */
    void listened(const QString &location, const QString &key);
    /** A call was refused or the player failed: the status's name ("VN_E_NOT_FOUND") and the library's message. */
    void failed(const QString &status, const QString &message);

protected:
    /** Loads `location` into `player` (an http(s) URL with `headers`); throws the library's error. */
    void loadInto(voicenote::player &player, const QString &location, bool autoplay) const;
    /** Options of the player about to be made (a subclass adds its own). */
    virtual void adjustOptions(voicenote::player_options &options) { (void)options; }
    /** After the player was made, before its events are subscribed to (a QueuePlayer sets its data source). */
    virtual void prepare(voicenote::player &player) { (void)player; }
    /** Each event, after the properties were updated from it. */
    virtual void handleEvent(const voicenote::player_event &event) { (void)event; }

private:
    void apply(const voicenote::player_context &context);
    void dispatchEvent(const voicenote::player_event &event);

    QString device_;
    QString deviceConfiguration_;
    QString mprisIdentity_;
    QString mprisDesktopEntry_;
    bool pauseOtherPlayers_ = false;
    QString streamRole_;
    State state_ = NotLoaded;
    qreal duration_ = 0;
    qreal position_ = 0;
    qreal rate_ = 1;
    QString location_;
    QVariantMap headers_;
    std::shared_ptr<voicenote::player> player_;
    voicenote::subscription subscription_;  // after the player: ends first
};

}  // namespace voicenote_qml

#endif
