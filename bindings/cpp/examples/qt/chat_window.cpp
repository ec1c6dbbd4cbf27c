#include "chat_window.hpp"

#include "event_loop_bridge.hpp"

#include <QCloseEvent>
#include <QFile>
#include <QFrame>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <cstdlib>

namespace voicenote_qt {

using voicenote::flow_event_type;
using voicenote::player_event_type;
using voicenote::player_state;

QString clock(double seconds) {
    long whole = seconds > 0 ? static_cast<long>(seconds) : 0;
    return QString("%1:%2").arg(whole / 60).arg(whole % 60, 2, 10, QChar('0'));
}

void label(QWidget *widget, const QString &text) {
    widget->setAccessibleName(text);
    widget->setToolTip(text);
}

namespace {

/** Whether a message's URL names the location the player reports (as given, or its file:// path). */
bool same(const QString &url, const QString &location) {
    return url == location || (url.startsWith("file://") && url.mid(7) == location);
}

QJsonArray readMessages(const QString &path) {
    if (path.isEmpty()) return {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw voicenote::error(VN_E_NOT_FOUND, ("cannot read " + path + ": " + file.errorString()).toStdString());
    QJsonParseError error{};
    QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError)
        throw voicenote::error(VN_E_FORMAT, (path + ": " + error.errorString()).toStdString());
    return document.object().value("messages").toArray();
}

}  // namespace

ChatWindow::ChatWindow(const ChatOptions &options, voicenote::manual_clock *clock, QWidget *parent)
    : QWidget(parent), userId_(options.userId), messages_(readMessages(options.messages)) {
    setWindowTitle(tr("voicenote chat"));
    resize(560, 640);

    // One loop for every voicenote object: their events wait there until Qt sees its descriptor readable.
    loop_ = std::make_unique<voicenote::event_loop>();
    bridge_ = std::make_unique<EventLoopBridge>(*loop_);

    voicenote::recorder_options recording;
    if (!options.recordings.isEmpty()) recording.directory = options.recordings.toStdString();
    recording.device = options.mic;
    recording.device_configuration = options.micConfig;
    recording.loop = loop_.get();
    recording.pause_other_players = true;  // the music pauses while a take is recorded, and resumes after
    recorder_ = std::make_unique<voicenote::recorder>(recording);

    voicenote::player_options playing;
    playing.device = options.speaker;
    playing.device_configuration = options.speakerConfig;
    playing.loop = loop_.get();
    // Notes play as "phone" streams: on PulseAudio (and pipewire-pulse) the sound server's own policies cork or duck
    // the music while one plays.
    playing.stream_role = "phone";
    previewPlayer_ = std::make_unique<voicenote::player>(playing);
    // The conversation's player shows itself to the desktop's media keys and controls while a note is loaded.
    playing.mpris = "voicenote chat";
    player_ = std::make_unique<voicenote::player>(playing);
    player_->set_leveling(true);  // every note at one loudness (-19 LUFS), peaks under -1 dBTP

    voicenote::flow_options flowing;
    flowing.confirmation_required = false;  // a sent take is published at once
    flowing.key_inputs = true;              // R held records, Escape cancels, Enter sends
    flowing.loop = loop_.get();
    flowing.clock = clock;
    flow_ = std::make_unique<voicenote::flow>(*recorder_, *previewPlayer_, flowing);

    auto *box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(0);
    scroller_ = new QScrollArea;
    scroller_->setWidgetResizable(true);
    scroller_->setFrameShape(QFrame::NoFrame);
    auto *listWidget = new QWidget;
    list_ = new QVBoxLayout(listWidget);
    list_->setContentsMargins(0, 0, 0, 0);
    list_->setSpacing(0);
    list_->addStretch(1);
    scroller_->setWidget(listWidget);
    box->addWidget(scroller_, 1);
    auto *separator = new QFrame;
    separator->setFrameShape(QFrame::HLine);
    separator->setFrameShadow(QFrame::Sunken);
    box->addWidget(separator);
    composer_ = new Composer(*this);
    box->addWidget(composer_);

    for (const QJsonValue &message : messages_) addRow(message.toObject());
    useMessages();
    setFocusPolicy(Qt::StrongFocus);

    flowSubscription_ = flow_->subscribe([this](const voicenote::flow_event &event) { flowEvent(event); });
    playerSubscription_ = player_->subscribe([this](const voicenote::player_event &event) { playerEvent(event); });
}

ChatWindow::~ChatWindow() { closeVoicenote(); }

void ChatWindow::closeVoicenote() {
    transcriptions_.clear();  // each subscription before its transcription (cancelled, not waited for)
    recogniser_.reset();
    playerSubscription_.reset();
    flowSubscription_.reset();
    flow_.reset();  // first: it cancels a running take on the recorder and stops the preview player
    recorder_.reset();
    previewPlayer_.reset();
    player_.reset();
    bridge_.reset();  // the notifier, before the loop's descriptor closes
    loop_.reset();
}

// -- events (all on the GUI thread, inside EventLoopBridge's dispatch) ----------------------------------------

void ChatWindow::countCallback() {
    ++callbacks_;
    if (QThread::currentThread() != thread()) ++callbacksOffThread_;
}

void ChatWindow::flowEvent(const voicenote::flow_event &event) {
    countCallback();
    switch (event.type) {
    case flow_event_type::view:
        composer_->show(event.view);
        break;
    case flow_event_type::attachment_ready: {
        sent_.push_back({QString::fromStdString(event.path), event.duration.count()});
        QJsonObject payload = QJsonDocument::fromJson(QByteArray::fromStdString(event.payload_json)).object();
        if (payload.isEmpty()) {  // the file could not be read back: the event's own fields
            QJsonArray waveform;
            for (float value : event.waveform) waveform.append(double(value));
            payload = QJsonObject{{"type", "voiceRecording"},
                                  {"asset_url", "file://" + QString::fromStdString(event.path)},
                                  {"duration", event.duration.count()},
                                  {"waveform_data", waveform}};
        }
        QJsonObject message{{"id", QString("local-%1").arg(messages_.size())},
                            {"user", QJsonObject{{"id", userId_}}},
                            {"attachments", QJsonArray{payload}}};
        messages_.append(message);
        addRow(message);
        useMessages();  // the queue follows the new note too
        break;
    }
    case flow_event_type::failed:
        composer_->showFailure(QString::fromStdString(event.message));
        break;
    default:
        break;  // publish (confirmation is not required: attachment_ready did the work), parked
    }
    Q_EMIT flowEventHandled(static_cast<int>(event.type));
}

void ChatWindow::playerEvent(const voicenote::player_event &event) {
    countCallback();
    const QString location = QString::fromStdString(
        event.type == player_event_type::context ? event.context.location : event.location);
    if (event.type == player_event_type::item_changed) {
        for (MessageRow *row : rows_)
            if (same(row->url(), location)) current_ = row;
    } else if (event.type == player_event_type::context) {
        const voicenote::player_context &context = event.context;
        for (MessageRow *row : rows_) {
            if (row == current_) {
                bool playing = context.state == player_state::playing;
                double duration = context.duration.count() > 0 ? context.duration.count() : row->duration();
                row->showState(playing, context.current_time.count(), duration);
            } else {
                row->showState(false, 0, row->duration());
            }
            row->showRate(context.rate);
        }
    } else if (event.type == player_event_type::failed) {
        composer_->showFailure(tr("cannot play: %1").arg(QString::fromStdString(event.message)));
    }
    Q_EMIT playerEventHandled(static_cast<int>(event.type), location);
}

void ChatWindow::failed(const QString &text) { composer_->showFailure(text); }

void ChatWindow::keyPressEvent(QKeyEvent *event) {
    std::optional<voicenote::flow_key> key;
    switch (event->key()) {
    case Qt::Key_R: key = voicenote::flow_key::record; break;
    case Qt::Key_Escape: key = voicenote::flow_key::escape; break;
    case Qt::Key_Return:
    case Qt::Key_Enter: key = voicenote::flow_key::enter; break;
    default: break;
    }
    if (!key) return QWidget::keyPressEvent(event);
    if (!event->isAutoRepeat()) withFlow([&](voicenote::flow &flow) { flow.key_down(*key); });
    event->accept();
}

void ChatWindow::keyReleaseEvent(QKeyEvent *event) {
    if (event->key() != Qt::Key_R) return QWidget::keyReleaseEvent(event);
    if (!event->isAutoRepeat()) withFlow([](voicenote::flow &flow) { flow.key_up(voicenote::flow_key::record); });
    event->accept();
}

void ChatWindow::closeEvent(QCloseEvent *event) {
    closeVoicenote();
    event->accept();
}

// -- actions ------------------------------------------------------------------------------------------------

void ChatWindow::addRow(const QJsonObject &message) {
    auto *row = new MessageRow(*this, message);
    if (row->isVoice()) rows_.push_back(row);
    if (row->isVoice() && player_) {
        // What the media controls show for it: who sent it (only the host knows).
        QString sender = message.value("user").toObject().value("id").toString();
        try {
            player_->set_metadata(row->url().toStdString(), tr("Voice message").toStdString(), sender.toStdString());
        } catch (const voicenote::error &e) {
            qInfo("no media-control metadata for %s: %s", qUtf8Printable(row->url()), e.what());
        }
    }
    if (row->isVoice() && row->transcriptText().isEmpty()) transcribe(row);
    list_->insertWidget(list_->count() - 1, row);  // before the stretch
    QTimer::singleShot(0, this, [this, row] { scroller_->ensureWidgetVisible(row); });
}

void ChatWindow::transcribe(MessageRow *row) {
    if (!loop_) return;
    try {
        if (!recogniser_) recogniser_.emplace(voicenote::recogniser::pocketsphinx());
        Transcribing transcribing;
        transcribing.job = std::make_unique<voicenote::transcription>(row->url().toStdString(), *recogniser_,
                                                                      voicenote::http_options{}, *loop_);
        // On the GUI thread (the loop): the row lives as long as the window, and the subscription ends before it.
        transcribing.events = transcribing.job->subscribe([this, row](const voicenote::transcription_event &event) {
            countCallback();
            if (event.kind != voicenote::transcription_event_kind::finished) return;
            std::vector<std::pair<QString, double>> words;
            for (const auto &word : event.words) words.emplace_back(QString::fromStdString(word.text), word.start);
            row->showWords(words);
        });
        transcribing.job->start();
        transcriptions_.push_back(std::move(transcribing));
    } catch (const voicenote::error &e) {
        // No PocketSphinx here, or a note it cannot read: the note plays on without its words.
        qInfo("no transcript for %s: %s", qUtf8Printable(row->url()), e.what());
    }
}

void ChatWindow::seekToWord(MessageRow *row, double start) {
    if (!player_) return;
    try {
        if (current_ != row) {
            current_ = row;
            player_->load(row->url().toStdString(), false, voicenote::seconds(row->duration()));
        }
        voicenote::seek_to_word(*player_, {"", start, start, 1});
    } catch (const voicenote::error &e) {
        failed(e.what());
    }
}

void ChatWindow::useMessages() {
    if (!player_) return;
    QByteArray json = QJsonDocument(QJsonObject{{"messages", messages_}}).toJson(QJsonDocument::Compact);
    try {
        player_->use_messages(std::string_view(json.constData(), static_cast<std::size_t>(json.size())), std::nullopt,
                              voicenote::next_scope::consecutive);
    } catch (const voicenote::error &e) {
        failed(e.what());
    }
}

void ChatWindow::toggle(MessageRow *row) {
    if (!player_) return;
    try {
        if (current_ == row && player_->context().state == player_state::playing) {
            player_->pause();
            return;
        }
        current_ = row;
        // As the message names it, so the queue finds it there and knows what follows.
        player_->load(row->url().toStdString(), true, voicenote::seconds(row->duration()));
    } catch (const voicenote::error &e) {
        failed(e.what());
    }
}

void ChatWindow::scrub(MessageRow *row, double fraction) {
    if (!player_) return;
    try {
        if (current_ != row) {
            current_ = row;
            player_->load(row->url().toStdString(), false, voicenote::seconds(row->duration()));
        }
        double duration = player_->context().duration.count();
        player_->seek(voicenote::seconds(fraction * (duration > 0 ? duration : row->duration())));
    } catch (const voicenote::error &e) {
        failed(e.what());
    }
}

void ChatWindow::nextRate() {
    if (!player_) return;
    try {
        double rate = player_->context().rate;
        std::size_t nearest = 0;
        for (std::size_t i = 1; i < rates.size(); ++i)
            if (std::abs(rates[i] - rate) < std::abs(rates[nearest] - rate)) nearest = i;
        player_->set_rate(rates[(nearest + 1) % rates.size()]);
    } catch (const voicenote::error &e) {
        failed(e.what());
    }
}

}  // namespace voicenote_qt
