/* voicenote-qt-driver — a scripted session of the Qt chat window, for tests (the counterpart of
 * bindings/python/tests/gtk_driver.py); run offscreen (QT_QPA_PLATFORM=offscreen, set when unset).
 *
 *   voicenote-qt-driver --messages M.json --out DIR --mic-config TEXT --speaker-config TEXT [--mic vn_mic]
 *                       [--speaker vn_spk]
 *
 * Through the window's own widgets (mouse and key events sent to them, button clicks): press the record button and
 * hold it (a manual clock passes the flow's minimum press), live bars while recording, slide up (locked), stop,
 * preview, move the end trim handle to 80 % and cut, send; the new message appears in the list. Then R held on the
 * keyboard records a second note and its release sends it; a third hold, slid left, is cancelled. Then play the
 * first note: the next ones play by themselves. Then the rate button steps 1x → 1.5x → 2x → 0.5x → 1x, and a
 * click in the middle of the first note's waveform scrubs there. Screenshots (QWidget::grab) of the recording, the
 * preview and the window go to DIR, and DIR/report.json tells what each step saw, how long it took, the player's
 * items, and how many pixels of each waveform area differ from the background.
 *
 * Every wait is on a condition, checked again after each flow or player event the window handled (they arrive
 * through the event loop's QSocketNotifier), after each change of the takes folder (a cancelled take's file is
 * deleted by the flow's worker after the idle view, and no event says so) and once right after the step's action;
 * each step has a bound (STEP_SECONDS), and the whole session another. A bound exceeded, or a step that throws,
 * ends the run with the failure in the report and exit status 1.
 */
#include "chat_window.hpp"
#include "event_loop_bridge.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileSystemWatcher>
#include <QImage>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPixmap>
#include <QProcess>
#include <QPushButton>
#include <QSlider>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <stdexcept>
#include <vector>

using namespace std::chrono_literals;
using voicenote::flow_state;
using voicenote::player_event_type;
using voicenote_qt::ChatWindow;
using voicenote_qt::Composer;
using voicenote_qt::MessageRow;

namespace {

constexpr int stepSeconds = 30;      // one step's bound
constexpr int sessionSeconds = 150;  // the whole session's

struct DriverOptions {
    QString messages, out;
    std::string mic, micConfig, speaker, speakerConfig;
};

/** One step: its action, then a wait until `done` holds; `after` records what it saw. */
struct Step {
    QString what;
    std::function<void()> act;
    std::function<bool()> done;
    std::function<void()> after;
};

class Driver : public QObject {
public:
    explicit Driver(const DriverOptions &options) : out_(options.out) {
        voicenote_qt::ChatOptions chat;
        chat.messages = options.messages;
        chat.userId = "me";
        chat.recordings = out_.filePath("takes");
        chat.mic = options.mic;
        chat.micConfig = options.micConfig;
        chat.speaker = options.speaker;
        chat.speakerConfig = options.speakerConfig;
        window_ = std::make_unique<ChatWindow>(chat, &clock_);
        QObject::connect(window_.get(), &ChatWindow::playerEventHandled, this,
                         [this](int type, const QString &location) {
                             auto kind = static_cast<player_event_type>(type);
                             if (kind == player_event_type::item_changed) items_.append(location);
                             else if (kind == player_event_type::finished) items_.append("finished " + location);
                             else if (kind == player_event_type::failed) items_.append("failed " + location);
                             recheck();
                         });
        QObject::connect(window_.get(), &ChatWindow::flowEventHandled, this, [this](int) { recheck(); });
        QObject::connect(&takesWatcher_, &QFileSystemWatcher::directoryChanged, this, [this] { recheck(); });
        deadline_.setSingleShot(true);
        QObject::connect(&deadline_, &QTimer::timeout, this, [this] { finish("timed out: " + steps_[index_].what); });
        session_.setSingleShot(true);
        QObject::connect(&session_, &QTimer::timeout, this, [this] { finish("timed out: the whole session"); });
        script();
    }

    /** Shows the window and starts the script from the event loop. */
    void start() {
        window_->show();
        session_.start(sessionSeconds * 1000);
        elapsed_.start();
        QTimer::singleShot(0, this, [this] { begin(0); });
    }

private:
    Composer *composer() const { return window_->composer(); }
    const voicenote::flow_view &view() const { return composer()->view(); }
    const std::vector<MessageRow *> &rows() const { return window_->rows(); }

    void script() {
        Composer *c = composer();
        steps_ = {
            {"the window is shown", nullptr,
             [=] { return window_->isVisible() && c->record()->isVisible() && c->record()->width() > 0; }, nullptr},
            {"the first view", nullptr, [=] { return c->viewed() && view().state == flow_state::idle; }, nullptr},
            {"recording, live bars",
             [=] {
                 pressAt_ = QPointF(c->record()->width() / 2.0, c->record()->height() / 2.0);
                 mouse(c->record(), QEvent::MouseButtonPress, pressAt_, Qt::LeftButton, Qt::LeftButton);
                 clock_.advance(0.5s);  // held for the minimum press
             },
             [=] {
                 return view().state == flow_state::recording && view().duration.count() >= 1.0 &&
                        !view().levels.empty() && c->bars()->isVisible();
             },
             [=] { report_["recording_label"] = c->status()->text(); }},
            {"locked",
             [=] {
                 QPointF up = pressAt_ + QPointF(0, -(voicenote_qt::lockDistance + 10));
                 mouse(c->record(), QEvent::MouseMove, up, Qt::NoButton, Qt::LeftButton);
                 mouse(c->record(), QEvent::MouseButtonRelease, up, Qt::LeftButton, Qt::NoButton);
             },
             [=] { return view().state == flow_state::locked && view().duration.count() >= 2.0; },
             [=] {
                 report_["locked_label"] = c->status()->text();
                 screenshot("recording.png", {{"live_bars", c->bars()}});
             }},
            {"preview", [=] { click(c->stop(), "Stop"); },
             [=] { return view().state == flow_state::preview && c->preview()->isVisible(); },
             [=] { recorded_ = view().duration.count(); }},
            {"the cut preview",
             [=] {
                 c->trimStart()->setValue(0);
                 c->trimEnd()->setValue(Composer::trimSteps * 8 / 10);  // the end handle to 80 %
                 click(c->cut(), "Cut");
             },
             [=] {
                 return view().state == flow_state::preview &&
                        std::abs(view().duration.count() - recorded_ * 0.8) < 0.01;
             },
             [=] {
                 report_["recorded"] = recorded_;
                 report_["cut"] = view().duration.count();
             }},
            {"the preview drawn",
             [=] {  // handles shown on the cut take, for the picture
                 c->trimStart()->setValue(Composer::trimSteps * 5 / 100);
                 c->trimEnd()->setValue(Composer::trimSteps * 95 / 100);
             },
             [] { return true; }, [=] { screenshot("preview.png", {{"preview_waveform", c->previewWave()}}); }},
            {"the new message in the list",
             [=] {
                 rowsBefore_ = rows().size();
                 click(c->send(), "Send");
             },
             [=] { return rows().size() == rowsBefore_ + 1 && view().state == flow_state::idle; },
             [=] {
                 const voicenote_qt::SentTake &sent = window_->sent().at(0);
                 report_["sent"] = QJsonObject{{"path", sent.path}, {"duration", sent.duration}};
             }},
            // The keyboard: R held records like the button (the clock passes the minimum press), released it sends.
            {"recording from the keyboard",
             [=] {
                 key(QEvent::KeyPress, Qt::Key_R, "r");
                 clock_.advance(0.5s);
             },
             [=] { return view().state == flow_state::recording && view().duration.count() >= 1.0; }, nullptr},
            {"the keyboard's note in the list", [=] { key(QEvent::KeyRelease, Qt::Key_R, "r"); },
             [=] { return rows().size() == rowsBefore_ + 2 && view().state == flow_state::idle; },
             [=] { report_["sent_by_keyboard"] = window_->sent().at(1).duration; }},
            // A hold slid left by more than the cancel distance: the take is deleted, nothing is sent.
            {"recording, to be cancelled",
             [=] {
                 mouse(c->record(), QEvent::MouseButtonPress, pressAt_, Qt::LeftButton, Qt::LeftButton);
                 clock_.advance(0.5s);
             },
             [=] { return view().state == flow_state::recording && view().duration.count() >= 0.5; }, nullptr},
            {"a slide left cancels",
             [=] {
                 // The folder the first take made, watched before the cancel.
                 if (!takesWatcher_.addPath(out_.filePath("takes"))) throw std::runtime_error("cannot watch the takes");
                 QPointF left = pressAt_ + QPointF(-(voicenote_qt::cancelDistance + 10), 0);
                 mouse(c->record(), QEvent::MouseMove, left, Qt::NoButton, Qt::LeftButton);
                 mouse(c->record(), QEvent::MouseButtonRelease, left, Qt::LeftButton, Qt::NoButton);
             },
             [=] {  // the flow's worker deletes the take just after the view says idle: the watcher rechecks
                 return view().state == flow_state::idle &&
                        static_cast<std::size_t>(QDir(out_.filePath("takes")).entryList(QDir::Files).size()) ==
                            window_->sent().size();
             },
             [=] {
                 QJsonArray sentPaths, takes;
                 for (const voicenote_qt::SentTake &take : window_->sent()) sentPaths.append(take.path);
                 for (const QString &file : QDir(out_.filePath("takes")).entryList(QDir::Files, QDir::Name))
                     takes.append(file);
                 report_["after_cancel"] = QJsonObject{{"rows", static_cast<int>(rows().size())},
                                                       {"sent", sentPaths}, {"takes", takes}};
             }},
            {"every note after the first plays by itself, the sent ones too",
             [=] {
                 click(rows().front()->playButton(), "Play");
                 last_ = rows().back()->url();
             },
             [=] { return items_.contains("finished " + last_); },
             [=] { report_["play_label_after_the_end"] = rows().front()->playButton()->accessibleName(); }},
            {"a frame drawn after the end", nullptr, [] { return true; }, nullptr},
        };
        for (const char *rate : {"1.5x", "2x", "0.5x", "1x"}) {
            steps_.push_back({QString("the rate button shows %1").arg(rate),
                              [=] { click(rows().front()->rateButton(), "Rate"); },
                              [=] {
                                  for (MessageRow *row : rows())
                                      if (row->rateButton()->text() != rate) return false;
                                  return true;
                              },
                              [=] {
                                  rates_.append(rows().front()->rateButton()->text());
                                  rateLabels_.append(rows().back()->rateButton()->accessibleName());
                              }});
        }
        steps_.push_back({"scrubbed to the middle of the first note",
                          [=] {
                              voicenote_qt::WaveformView *wave = rows().front()->waveform();
                              QPointF middle(wave->width() / 2.0, wave->height() / 2.0);
                              mouse(wave, QEvent::MouseButtonPress, middle, Qt::LeftButton, Qt::LeftButton);
                              mouse(wave, QEvent::MouseButtonRelease, middle, Qt::LeftButton, Qt::NoButton);
                          },
                          [=] {
                              return window_->current() == rows().front() &&
                                     std::abs(rows().front()->waveform()->progress() - 0.5) < 0.05;
                          },
                          [=] {
                              report_["scrubbed"] = QJsonObject{
                                  {"progress", rows().front()->waveform()->progress()},
                                  {"position_label", rows().front()->position()->text()},
                                  {"player_time", window_->player()->context().current_time.count()}};
                          }});
        steps_.push_back({"the window drawn", nullptr, [] { return true; }, [=] {
                              report_["rows"] = static_cast<int>(rows().size());
                              report_["accessible_record_label"] = c->record()->toolTip();
                              report_["rate_label"] = rows().front()->rateButton()->text();
                              screenshot("window.png", {});
                          }});
        // The first note's transcript (carried by its message): its words shown; the link of "world" seeks there.
        steps_.push_back({"a click on a word seeks the note there",
                          [=] {
                              report_["transcript_text"] = rows().front()->transcriptText();
                              Q_EMIT rows().front()->transcript()->linkActivated("word:1");
                          },
                          [=] {
                              return window_->current() == rows().front() &&
                                     std::abs(window_->player()->context().current_time.count() - 1.15) < 0.01;
                          },
                          [=] { report_["seek_position"] = window_->player()->context().current_time.count(); }});
        // Loaded and paused there: the player is on the desktop's media controls (MPRIS) with the sender's name.
        if (qEnvironmentVariableIsSet("DBUS_SESSION_BUS_ADDRESS")) {
            steps_.push_back({"on the desktop's media controls", nullptr,
                              [=] { return !mediaControls().isEmpty(); },
                              [=] { report_["media_controls"] = mediaControls(); }});
        }
    }

    /** What playerctl (the media keys' side) shows of the client's player: "title|artist", or "" for none. */
    static QString mediaControls() {
        QProcess playerctl;
        playerctl.start("playerctl", {"--no-messages", "metadata", "--format", "{{title}}|{{artist}}"});
        if (!playerctl.waitForFinished(5000)) playerctl.kill();
        return QString::fromUtf8(playerctl.readAllStandardOutput()).trimmed();
    }

    // -- the step machine -----------------------------------------------------------------------------------

    void begin(std::size_t index) {
        if (finished_) return;
        index_ = index;
        advancing_ = false;
        if (index_ >= steps_.size()) return finish(QString());
        Step &step = steps_[index_];
        steps_report_.append(step.what);
        stepStarted_ = elapsed_.elapsed();
        deadline_.start(stepSeconds * 1000);
        try {
            if (step.act) step.act();
        } catch (const std::exception &e) {
            return finish(step.what + ": " + e.what());
        }
        QTimer::singleShot(0, this, [this] { recheck(); });  // a condition already true, or one of the layout
    }

    /** Whether the current step's condition holds now; if so, moves on from the event loop (never from inside a
     *  voicenote callback: the next action may advance the clock or call the flow). */
    void recheck() {
        if (finished_ || advancing_ || index_ >= steps_.size()) return;
        bool done = false;
        try {
            done = steps_[index_].done();
        } catch (const std::exception &e) {
            advancing_ = true;
            QString failure = steps_[index_].what + ": " + e.what();
            QTimer::singleShot(0, this, [this, failure] { finish(failure); });
            return;
        }
        if (!done) return;
        advancing_ = true;
        QTimer::singleShot(0, this, [this] {
            if (finished_) return;
            Step &step = steps_[index_];
            deadline_.stop();
            durations_.append(QJsonObject{{"step", step.what},
                                          {"seconds", (elapsed_.elapsed() - stepStarted_) / 1000.0}});
            try {
                if (step.after) step.after();
            } catch (const std::exception &e) {
                return finish(step.what + ": " + e.what());
            }
            begin(index_ + 1);
        });
    }

    void finish(const QString &failure) {
        if (finished_) return;
        finished_ = true;
        deadline_.stop();
        session_.stop();
        report_["failure"] = failure.isEmpty() ? QJsonValue() : QJsonValue(failure);
        if (!failure.isEmpty()) report_["status_at_failure"] = composer()->status()->text();  // a flow failure shows there
        report_["steps"] = steps_report_;
        report_["step_durations"] = durations_;
        report_["items"] = items_;
        report_["rates"] = rates_;
        report_["rate_labels"] = rateLabels_;
        report_["waveform_areas"] = areas_;
        report_["window_sizes"] = sizes_;
        report_["session_seconds"] = elapsed_.elapsed() / 1000.0;
        report_["callbacks"] = static_cast<qint64>(window_->callbacks());
        report_["callbacks_off_gui_thread"] = static_cast<qint64>(window_->callbacksOffThread());
        if (voicenote_qt::EventLoopBridge *bridge = window_->bridge()) {
            report_["loop_wakeups"] = static_cast<qint64>(bridge->wakeups());
            report_["loop_dispatched"] = static_cast<qint64>(bridge->dispatched());
        }
        writeReport(out_, report_);
        window_->closeVoicenote();
        window_->close();
        QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
    }

public:
    static void writeReport(const QDir &out, const QJsonObject &report) {
        QFile file(out.filePath("report.json"));
        if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            file.write(QJsonDocument(report).toJson(QJsonDocument::Indented));
        else
            std::fprintf(stderr, "voicenote-qt-driver: cannot write %s\n", qPrintable(file.fileName()));
    }

private:
    // -- input, as a person's --------------------------------------------------------------------------------

    static void mouse(QWidget *widget, QEvent::Type type, QPointF at, Qt::MouseButton button,
                      Qt::MouseButtons buttons) {
        if (!widget->isVisible()) throw std::runtime_error(widget->accessibleName().toStdString() + " is not shown");
        QMouseEvent event(type, at, widget->mapToGlobal(at), button, buttons, Qt::NoModifier);
        QApplication::sendEvent(widget, &event);
    }

    void key(QEvent::Type type, Qt::Key which, const QString &text) {
        QKeyEvent event(type, which, Qt::NoModifier, text);
        QApplication::sendEvent(window_.get(), &event);
    }

    static void click(QAbstractButton *button, const char *name) {
        if (!button->isVisible() || !button->isEnabled())
            throw std::runtime_error(std::string("the ") + name + " button is not shown");
        button->click();
    }

    // -- pictures --------------------------------------------------------------------------------------------

    /** The window as it draws itself (QWidget::grab), to DIR/name; how many pixels of each message's waveform area
     *  (and of the `extra` ones) differ from the background at the area's top left corner. */
    void screenshot(const QString &name, const std::vector<std::pair<QString, QWidget *>> &extra) {
        QPixmap pixmap = window_->grab();
        if (!pixmap.save(out_.filePath(name))) throw std::runtime_error("cannot save " + name.toStdString());
        QImage image = pixmap.toImage().convertToFormat(QImage::Format_RGB32);
        const qreal ratio = pixmap.devicePixelRatio();
        QJsonArray areas;
        for (MessageRow *row : rows()) areas.append(area(image, ratio, row->waveform()));
        areas_[name] = areas;
        sizes_[name] = QJsonArray{window_->width(), window_->height()};
        for (const auto &[key, widget] : extra) report_[key] = area(image, ratio, widget);
    }

    QJsonObject area(const QImage &image, qreal ratio, QWidget *widget) const {
        QRect logical(widget->mapTo(window_.get(), QPoint(0, 0)), widget->size());
        QRect bounds(QPoint(qRound(logical.x() * ratio), qRound(logical.y() * ratio)),
                     QSize(qRound(logical.width() * ratio), qRound(logical.height() * ratio)));
        bounds = bounds.intersected(image.rect());
        int differing = 0;
        if (widget->isVisible() && !bounds.isEmpty()) {
            const QRgb background = image.pixel(bounds.topLeft());
            for (int y = bounds.top(); y <= bounds.bottom(); ++y)
                for (int x = bounds.left(); x <= bounds.right(); ++x)
                    if (image.pixel(x, y) != background) ++differing;
        }
        return {{"width", bounds.width()}, {"height", bounds.height()}, {"differing_pixels", differing},
                {"visible", widget->isVisible()}};
    }

    QDir out_;
    voicenote::manual_clock clock_;  // before the window: the flow's clock outlives it
    std::unique_ptr<ChatWindow> window_;
    std::vector<Step> steps_;
    std::size_t index_ = 0;
    bool advancing_ = false, finished_ = false;
    QTimer deadline_, session_;
    QFileSystemWatcher takesWatcher_;  // the takes folder, once a step waits on its files
    QElapsedTimer elapsed_;
    qint64 stepStarted_ = 0;
    QJsonObject report_;
    QJsonArray steps_report_, durations_, items_, rates_, rateLabels_;
    QJsonObject areas_, sizes_;
    QPointF pressAt_;
    double recorded_ = 0;
    std::size_t rowsBefore_ = 0;
    QString last_;
};

}  // namespace

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("A scripted session of the voicenote Qt chat window, for tests.");
    parser.addHelpOption();
    QCommandLineOption messages("messages", "The conversation (JSON, Stream's shape).", "file");
    QCommandLineOption out("out", "Where report.json and the screenshots go.", "directory");
    QCommandLineOption mic("mic", "The ALSA capture device.", "name", "vn_mic");
    QCommandLineOption micConfig("mic-config", "ALSA configuration text defining --mic.", "text");
    QCommandLineOption speaker("speaker", "The ALSA playback device.", "name", "vn_spk");
    QCommandLineOption speakerConfig("speaker-config", "ALSA configuration text defining --speaker.", "text");
    parser.addOptions({messages, out, mic, micConfig, speaker, speakerConfig});
    parser.process(app);
    for (const QCommandLineOption *required : {&messages, &out, &micConfig, &speakerConfig}) {
        if (!parser.isSet(*required)) {
            std::fprintf(stderr, "voicenote-qt-driver: --%s is required\n", qPrintable(required->names().front()));
            return 2;
        }
    }
    DriverOptions options{parser.value(messages), parser.value(out), parser.value(mic).toStdString(),
                          parser.value(micConfig).toStdString(), parser.value(speaker).toStdString(),
                          parser.value(speakerConfig).toStdString()};
    QDir().mkpath(options.out);
    std::unique_ptr<Driver> driver;
    try {
        driver = std::make_unique<Driver>(options);
    } catch (const std::exception &e) {
        Driver::writeReport(QDir(options.out), QJsonObject{{"failure", QString("set-up: ") + e.what()}});
        return 1;
    }
    driver->start();
    return app.exec();
}
