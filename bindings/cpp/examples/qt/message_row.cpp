#include "chat_window.hpp"

#include <QHBoxLayout>
#include <QJsonValue>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace voicenote_qt {

namespace {

std::vector<float> floats(const QJsonArray &array) {
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(array.size()));
    for (const QJsonValue &value : array) values.push_back(static_cast<float>(value.toDouble()));
    return values;
}

/** The message's first voiceRecording attachment, if any. */
std::optional<QJsonObject> voiceRecording(const QJsonObject &message) {
    for (const QJsonValue &attachment : message.value("attachments").toArray()) {
        QJsonObject object = attachment.toObject();
        if (object.value("type").toString() == "voiceRecording") return object;
    }
    return std::nullopt;
}

QString rateText(double rate) { return QString::number(rate, 'g', 3) + "x"; }

/** The words of the transcript an attachment carries (voicenote_transcript), if it carries one. */
std::optional<std::vector<std::pair<QString, double>>> carriedWords(const QJsonObject &attachment) {
    QJsonValue carried = attachment.value("voicenote_transcript");
    if (!carried.isObject() || !carried.toObject().value("words").isArray()) return std::nullopt;
    std::vector<std::pair<QString, double>> words;
    for (const QJsonValue &word : carried.toObject().value("words").toArray()) {
        QJsonObject object = word.toObject();
        if (!object.value("text").isString() || !object.value("start").isDouble()) return std::nullopt;
        words.emplace_back(object.value("text").toString(), object.value("start").toDouble());
    }
    return words;
}

}  // namespace

MessageRow::MessageRow(ChatWindow &chat, const QJsonObject &message, QWidget *parent) : QWidget(parent) {
    auto *box = new QVBoxLayout(this);
    box->setContentsMargins(10, 6, 10, 6);
    box->setSpacing(4);
    QString sender = message.value("user").toObject().value("id").toString("?");
    sender_ = sender;
    auto *header = new QLabel(QString("<b>%1</b>").arg(sender.toHtmlEscaped()));
    header->setTextFormat(Qt::RichText);
    box->addWidget(header);
    if (QString text = message.value("text").toString(); !text.isEmpty()) {
        auto *body = new QLabel(text);
        body->setTextFormat(Qt::PlainText);
        body->setWordWrap(true);
        box->addWidget(body);
    }
    std::optional<QJsonObject> voice = voiceRecording(message);
    if (!voice) return;
    voice_ = true;
    url_ = voice->value("asset_url").toString();
    duration_ = voice->value("duration").toDouble();

    auto *controls = new QHBoxLayout;
    controls->setSpacing(8);
    playButton_ = new QToolButton;
    playButton_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    label(playButton_, tr("Play voice message from %1, %2").arg(sender, clock(duration_)));
    QObject::connect(playButton_, &QToolButton::clicked, this, [this, &chat] { chat.toggle(this); });
    waveform_ = new WaveformView(floats(voice->value("waveform_data").toArray()), 36,
                                 [this, &chat](double fraction) { chat.scrub(this, fraction); });
    position_ = new QLabel(clock(duration_));
    position_->setMinimumWidth(position_->fontMetrics().horizontalAdvance("00:00"));
    position_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    rateButton_ = new QPushButton(rateText(1.0));
    rateButton_->setMinimumWidth(rateButton_->fontMetrics().horizontalAdvance("0.5x") + 16);
    label(rateButton_, tr("Playback speed %1").arg(rateText(1.0)));
    QObject::connect(rateButton_, &QPushButton::clicked, this, [&chat] { chat.nextRate(); });
    controls->addWidget(playButton_);
    controls->addWidget(waveform_, 1);
    controls->addWidget(position_);
    controls->addWidget(rateButton_);
    box->addLayout(controls);
    transcript_ = new QLabel;
    transcript_->setTextFormat(Qt::RichText);
    transcript_->setWordWrap(true);
    transcript_->setVisible(false);
    transcript_->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    QObject::connect(transcript_, &QLabel::linkActivated, this, [this, &chat](const QString &link) {
        bool ok = false;
        std::size_t index = link.section(':', 1).toULongLong(&ok);
        if (ok && index < starts_.size()) chat.seekToWord(this, starts_[index]);
    });
    box->addWidget(transcript_);
    if (auto words = carriedWords(*voice)) showWords(*words);
}

void MessageRow::showWords(const std::vector<std::pair<QString, double>> &words) {
    if (!voice_) return;
    starts_.clear();
    words_.clear();
    QStringList links;
    for (const auto &[text, start] : words) {
        words_ << text;
        links << QString("<a href=\"word:%1\">%2</a>").arg(starts_.size()).arg(text.toHtmlEscaped());
        starts_.push_back(start);
    }
    transcript_->setText(links.join(' '));
    transcript_->setVisible(!words.empty());
}

void MessageRow::showState(bool playing, double position, double duration) {
    if (!voice_) return;
    playButton_->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    label(playButton_, (playing ? tr("Pause voice message, %1 of %2") : tr("Play voice message, %1 of %2"))
                           .arg(clock(position), clock(duration)));
    position_->setText(clock(playing || position > 0 ? position : duration));
    waveform_->setProgress(duration > 0 ? position / duration : 0);
}

void MessageRow::showRate(double rate) {
    if (!voice_) return;
    rateButton_->setText(rateText(rate));
    label(rateButton_, tr("Playback speed %1").arg(rateText(rate)));
}

}  // namespace voicenote_qt
