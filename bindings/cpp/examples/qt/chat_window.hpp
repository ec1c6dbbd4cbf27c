/* chat_window.hpp — a Qt 6 Widgets chat window with voice messages, built on voicenote's C++ layer: the model for Qt
 * and KDE chat clients to copy (the C++ counterpart of bindings/python/examples/gtk/voicenote_chat.py).
 *
 * - The composer: a hold-to-record button driven by voicenote::flow — hold it to record (live bars), slide left to
 *   cancel, slide up to lock; stop puts the take in preview, with play, trim handles and cut, discard and send;
 *   send adds it to the conversation. The keyboard works too (the flow's key inputs: hold R to record, Escape
 *   cancels, Enter sends) and every control carries an accessible name (and the same tooltip).
 * - The conversation: messages from a JSON file in Stream's shape ({"messages": [...]}, oldest first), each voice
 *   message with its waveform (click or drag on it to scrub), play/pause, a rate button (1x → 1.5x → 2x → 0.5x,
 *   kept by the player) and its position; when one ends, the next plays by itself (voicenote::player::use_messages).
 *   Under each, its transcript: the one the message carries (voicenote_transcript), else recognised on this machine
 *   (voicenote::transcription with PocketSphinx, kept in the media cache); each word a link that seeks there.
 * - Events reach Qt through the library's event loop: the recorder, both players and the flow deliver into one
 *   voicenote::event_loop whose descriptor a QSocketNotifier watches (EventLoopBridge), so every callback runs on
 *   the GUI thread, and nothing polls.
 */
#ifndef VOICENOTE_QT_CHAT_WINDOW_HPP
#define VOICENOTE_QT_CHAT_WINDOW_HPP

#include "waveform_view.hpp"

#include <voicenote.hpp>
#include <voicenote/flow.hpp>
#include <voicenote/player.hpp>
#include <voicenote/recorder.hpp>
#include <voicenote/transcript.hpp>

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <QToolButton>
#include <QWidget>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QGraphicsOpacityEffect;
class QLabel;
class QPushButton;
class QScrollArea;
class QSlider;
class QVBoxLayout;

namespace voicenote_qt {

class ChatWindow;
class EventLoopBridge;

/** The rates the rate button steps through, as Stream's and most chat apps do. */
inline constexpr std::array<double, 4> rates{1.0, 1.5, 2.0, 0.5};
/** How far (px) the pointer slides up to lock, and left to cancel (the flow's defaults). */
inline constexpr double lockDistance = 50.0, cancelDistance = 75.0;

/** m:ss */
QString clock(double seconds);
/** Sets what a screen reader says for `widget`, and its tooltip. */
void label(QWidget *widget, const QString &text);

/** What the window is made with (the command line's options). */
struct ChatOptions {
    QString messages;           ///< a JSON file of messages in Stream's shape, oldest first ("" for none)
    QString userId = "me";      ///< who you are in the conversation
    QString recordings;         ///< where takes are written ("" for the library's default)
    std::optional<std::string> mic, micConfig;          ///< the ALSA capture device, and configuration text naming it
    std::optional<std::string> speaker, speakerConfig;  ///< the ALSA playback device, and configuration text
};

/** One message: who sent it, its text, and for a voice message its player controls. */
class MessageRow : public QWidget {
public:
    MessageRow(ChatWindow &chat, const QJsonObject &message, QWidget *parent = nullptr);

    bool isVoice() const { return voice_; }
    const QString &url() const { return url_; }
    double duration() const { return duration_; }
    QToolButton *playButton() const { return playButton_; }
    WaveformView *waveform() const { return waveform_; }
    QLabel *position() const { return position_; }
    QPushButton *rateButton() const { return rateButton_; }
    QLabel *transcript() const { return transcript_; }
    /** The words shown under it, joined by spaces ("" until there are any). */
    QString transcriptText() const { return words_.join(' '); }

    /** Shows the note's words under it, each a link to where it begins (seconds). */
    void showWords(const std::vector<std::pair<QString, double>> &words);

    /** Draws the player's state for this note. */
    void showState(bool playing, double position, double duration);
    /** Shows the player's rate on the rate button. */
    void showRate(double rate);

private:
    bool voice_ = false;
    QString sender_, url_;
    double duration_ = 0;
    QToolButton *playButton_ = nullptr;
    WaveformView *waveform_ = nullptr;
    QLabel *position_ = nullptr;
    QPushButton *rateButton_ = nullptr;
    QLabel *transcript_ = nullptr;
    QStringList words_;
    std::vector<double> starts_;
};

/** The record button: its press, moves and release (in its own coordinates) go to the flow. */
class RecordButton : public QToolButton {
public:
    explicit RecordButton(ChatWindow &chat, QWidget *parent = nullptr);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    ChatWindow &chat_;
    bool held_ = false;
};

/** The hold-to-record button and what the flow's view says: live bars, slide to cancel, the lock, the preview with
 *  trim handles, and send. */
class Composer : public QWidget {
public:
    explicit Composer(ChatWindow &chat, QWidget *parent = nullptr);

    /** Draws what the flow's view says. */
    void show(const voicenote::flow_view &view);
    /** Shows a failure in the status line. */
    void showFailure(const QString &text);
    /** Cuts the take to the trim handles (when they are not at the ends). */
    void applyTrim();

    /** The last view the flow sent, and whether one came. */
    const voicenote::flow_view &view() const { return view_; }
    bool viewed() const { return viewed_; }

    QLabel *status() const { return status_; }
    WaveformView *bars() const { return bars_; }
    QLabel *lockLabel() const { return lockLabel_; }
    RecordButton *record() const { return record_; }
    QPushButton *stop() const { return stop_; }
    QWidget *preview() const { return preview_; }
    QToolButton *previewPlay() const { return previewPlay_; }
    WaveformView *previewWave() const { return previewWave_; }
    QSlider *trimStart() const { return trimStart_; }
    QSlider *trimEnd() const { return trimEnd_; }
    QPushButton *cut() const { return cut_; }
    QToolButton *discard() const { return discard_; }
    QPushButton *send() const { return send_; }

    /** The trim sliders' range: a value over this is a fraction of the take. */
    static constexpr int trimSteps = 1000;

private:
    void trimMoved();

    ChatWindow &chat_;
    voicenote::flow_view view_;
    bool viewed_ = false;
    QLabel *status_ = nullptr;
    QGraphicsOpacityEffect *statusOpacity_ = nullptr;
    WaveformView *bars_ = nullptr;
    QLabel *lockLabel_ = nullptr;
    QGraphicsOpacityEffect *lockOpacity_ = nullptr;
    RecordButton *record_ = nullptr;
    QPushButton *stop_ = nullptr;
    QWidget *preview_ = nullptr;
    QToolButton *previewPlay_ = nullptr;
    WaveformView *previewWave_ = nullptr;
    QSlider *trimStart_ = nullptr;
    QSlider *trimEnd_ = nullptr;
    QPushButton *cut_ = nullptr;
    QToolButton *discard_ = nullptr;
    QPushButton *send_ = nullptr;
};

/** A take the flow handed over (its attachment_ready event). */
struct SentTake {
    QString path;
    double duration = 0;
};

/** The conversation above, the composer below; one event loop for every voicenote object, watched by Qt. */
class ChatWindow : public QWidget {
    Q_OBJECT

public:
    /** Makes the window and its voicenote objects; `clock` (tests, scripted demos: it must outlive the window) runs
     *  the flow's timers instead of the monotonic clock. Throws voicenote::error when an object cannot be made. */
    explicit ChatWindow(const ChatOptions &options, voicenote::manual_clock *clock = nullptr,
                        QWidget *parent = nullptr);
    ~ChatWindow() override;

    /** Closes the flow first (it uses the recorder and a player), then the players and recorder, the loop last.
     *  Idempotent; the window's controls do nothing after it. */
    void closeVoicenote();

    // -- actions (what the controls do) ----------------------------------------------------------------------
    /** Play/pause: the same note pauses or plays on; another note loads and plays (the queue follows it). */
    void toggle(MessageRow *row);
    /** Moves in a note (loading it, paused, when another is current). */
    void scrub(MessageRow *row, double fraction);
    /** The next rate of `rates` after the player's. */
    void nextRate();
    /** Moves to a word of a note (loading it, paused, when another is current), 50 ms before it begins. */
    void seekToWord(MessageRow *row, double start);
    /** Runs `action` on the flow, showing a refusal (voicenote::error) in the composer. */
    template <class Action>
    void withFlow(Action action) {
        if (!flow_) return;
        try {
            action(*flow_);
        } catch (const voicenote::error &e) {
            failed(e.what());
        }
    }

    // -- what a test or a host inspects ------------------------------------------------------------------------
    Composer *composer() const { return composer_; }
    const std::vector<MessageRow *> &rows() const { return rows_; }
    MessageRow *current() const { return current_; }
    const std::vector<SentTake> &sent() const { return sent_; }
    voicenote::player *player() const { return player_.get(); }
    EventLoopBridge *bridge() const { return bridge_.get(); }
    /** Callbacks that ran, and how many of them ran off the GUI thread (none should). */
    std::size_t callbacks() const { return callbacks_; }
    std::size_t callbacksOffThread() const { return callbacksOffThread_; }

Q_SIGNALS:
    /** After the window handled a flow event (`type`: a voicenote::flow_event_type). */
    void flowEventHandled(int type);
    /** After the window handled a player event (`type`: a voicenote::player_event_type; its location). */
    void playerEventHandled(int type, const QString &location);

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void flowEvent(const voicenote::flow_event &event);
    void playerEvent(const voicenote::player_event &event);
    void countCallback();
    void failed(const QString &text);
    void addRow(const QJsonObject &message);
    void useMessages();
    /** Recognises a note's words off the GUI thread; shown under `row` when they come. */
    void transcribe(MessageRow *row);

    QString userId_;
    QJsonArray messages_;
    std::vector<MessageRow *> rows_;
    MessageRow *current_ = nullptr;
    std::vector<SentTake> sent_;
    std::size_t callbacks_ = 0, callbacksOffThread_ = 0;

    QVBoxLayout *list_ = nullptr;
    QScrollArea *scroller_ = nullptr;
    Composer *composer_ = nullptr;

    // Destroyed (closeVoicenote) in the reverse order: the subscriptions, the flow, the players and recorder, the
    // notifier, the loop.
    std::unique_ptr<voicenote::event_loop> loop_;
    std::unique_ptr<EventLoopBridge> bridge_;
    std::unique_ptr<voicenote::recorder> recorder_;
    std::unique_ptr<voicenote::player> previewPlayer_;
    std::unique_ptr<voicenote::player> player_;
    std::unique_ptr<voicenote::flow> flow_;
    voicenote::subscription flowSubscription_;
    voicenote::subscription playerSubscription_;
    std::optional<voicenote::recogniser> recogniser_;
    /** The transcriptions under way or done, each with its subscription (ended before the transcription). */
    struct Transcribing {
        std::unique_ptr<voicenote::transcription> job;
        voicenote::subscription events;
    };
    std::vector<Transcribing> transcriptions_;
};

}  // namespace voicenote_qt

#endif
