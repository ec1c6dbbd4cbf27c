#include "chat_window.hpp"

#include <QGraphicsOpacityEffect>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QSlider>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace voicenote_qt {

using voicenote::flow_state;

RecordButton::RecordButton(ChatWindow &chat, QWidget *parent) : QToolButton(parent), chat_(chat) {
    QIcon microphone = QIcon::fromTheme("audio-input-microphone");
    if (microphone.isNull()) {
        setText(tr("Record"));
    } else {
        setIcon(microphone);
    }
    setMinimumSize(44, 32);
    label(this, tr("Record a voice message: hold to record"));
}

// The flow measures the gestures from the press point, in the button's coordinates; Qt keeps sending this button
// the moves and the release of a press that began on it (the implicit grab), also outside it.
void RecordButton::mousePressEvent(QMouseEvent *event) {
    if (event->button() != Qt::LeftButton) return QToolButton::mousePressEvent(event);
    held_ = true;
    setDown(true);
    QPointF at = event->position();
    chat_.withFlow([&](voicenote::flow &flow) { flow.press(at.x(), at.y()); });
}

void RecordButton::mouseMoveEvent(QMouseEvent *event) {
    if (!held_) return QToolButton::mouseMoveEvent(event);
    QPointF at = event->position();
    chat_.withFlow([&](voicenote::flow &flow) { flow.move(at.x(), at.y()); });
}

void RecordButton::mouseReleaseEvent(QMouseEvent *event) {
    if (!held_ || event->button() != Qt::LeftButton) return QToolButton::mouseReleaseEvent(event);
    held_ = false;
    setDown(false);
    chat_.withFlow([](voicenote::flow &flow) { flow.release(); });
}

Composer::Composer(ChatWindow &chat, QWidget *parent) : QWidget(parent), chat_(chat) {
    auto *box = new QVBoxLayout(this);
    box->setContentsMargins(10, 6, 10, 8);
    box->setSpacing(4);

    // The recording row: the status (time, "slide to cancel"), the live bars, the lock, stop, the record button.
    auto *row = new QHBoxLayout;
    row->setSpacing(8);
    status_ = new QLabel(tr("Hold to record"));
    status_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    statusOpacity_ = new QGraphicsOpacityEffect(status_);
    statusOpacity_->setOpacity(1);
    status_->setGraphicsEffect(statusOpacity_);
    bars_ = new WaveformView({}, 28);
    bars_->setAccessibleName(tr("Recording level"));
    bars_->setVisible(false);
    lockLabel_ = new QLabel(tr("▲ lock"));
    lockLabel_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    label(lockLabel_, tr("Slide up to lock"));
    lockOpacity_ = new QGraphicsOpacityEffect(lockLabel_);
    lockLabel_->setGraphicsEffect(lockOpacity_);
    lockLabel_->setVisible(false);
    stop_ = new QPushButton(tr("Stop"));
    label(stop_, tr("Stop recording and listen"));
    QObject::connect(stop_, &QPushButton::clicked, this, [this] { chat_.withFlow([](auto &flow) { flow.stop(); }); });
    stop_->setVisible(false);
    record_ = new RecordButton(chat);
    row->addWidget(status_, 1);
    row->addWidget(bars_, 2);
    row->addWidget(lockLabel_);
    row->addWidget(stop_);
    row->addWidget(record_);
    box->addLayout(row);

    // The preview: play and the waveform with the trim handles; below, the handles' sliders, cut, discard, send.
    preview_ = new QWidget;
    auto *lines = new QVBoxLayout(preview_);
    lines->setContentsMargins(0, 0, 0, 0);
    lines->setSpacing(4);
    auto *line = new QHBoxLayout;
    line->setSpacing(8);
    previewPlay_ = new QToolButton;
    previewPlay_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    label(previewPlay_, tr("Play the recording"));
    QObject::connect(previewPlay_, &QToolButton::clicked, this, [this] {
        bool playing = view_.preview_playing;
        chat_.withFlow([playing](voicenote::flow &flow) { playing ? flow.pause() : flow.play(); });
    });
    previewWave_ = new WaveformView({}, 36, [this](double fraction) {
        voicenote::seconds to = fraction * view_.duration;
        chat_.withFlow([to](voicenote::flow &flow) { flow.seek(to); });
    });
    line->addWidget(previewPlay_);
    line->addWidget(previewWave_, 1);
    lines->addLayout(line);
    auto *edit = new QHBoxLayout;
    edit->setSpacing(8);
    auto *trimLabel = new QLabel(tr("Trim"));
    edit->addWidget(trimLabel);
    trimStart_ = new QSlider(Qt::Horizontal);
    trimEnd_ = new QSlider(Qt::Horizontal);
    for (auto [slider, name] : {std::pair{trimStart_, tr("Trim start")}, std::pair{trimEnd_, tr("Trim end")}}) {
        slider->setRange(0, trimSteps);
        slider->setMinimumWidth(90);
        label(slider, name);
        QObject::connect(slider, &QSlider::valueChanged, this, [this] { trimMoved(); });
        edit->addWidget(slider, 1);
    }
    trimEnd_->setValue(trimSteps);
    cut_ = new QPushButton(tr("Cut"));
    label(cut_, tr("Cut the recording to the trim handles"));
    QObject::connect(cut_, &QPushButton::clicked, this, [this] { applyTrim(); });
    discard_ = new QToolButton;
    discard_->setIcon(style()->standardIcon(QStyle::SP_TrashIcon));
    label(discard_, tr("Discard the recording"));
    QObject::connect(discard_, &QToolButton::clicked, this,
                     [this] { chat_.withFlow([](voicenote::flow &flow) { flow.discard(); }); });
    send_ = new QPushButton(tr("Send"));
    label(send_, tr("Send the voice message"));
    QObject::connect(send_, &QPushButton::clicked, this,
                     [this] { chat_.withFlow([](voicenote::flow &flow) { flow.send(); }); });
    edit->addWidget(cut_);
    edit->addWidget(discard_);
    edit->addWidget(send_);
    lines->addLayout(edit);
    preview_->setVisible(false);
    box->addWidget(preview_);
}

void Composer::trimMoved() {
    double start = trimStart_->value() / double(trimSteps), end = trimEnd_->value() / double(trimSteps);
    previewWave_->setTrim(std::pair{start, std::max(start, end)});
}

void Composer::applyTrim() {
    double start = trimStart_->value() / double(trimSteps), end = trimEnd_->value() / double(trimSteps);
    const voicenote::seconds duration = view_.duration;
    if (duration.count() > 0 && end > start && (start > 0 || end < 1))
        chat_.withFlow([&](voicenote::flow &flow) { flow.trim(start * duration, end * duration); });
}

void Composer::showFailure(const QString &text) {
    status_->setText(QString::fromUtf8("⚠ ") + text);
    statusOpacity_->setOpacity(1);
}

void Composer::show(const voicenote::flow_view &view) {
    const bool enteringPreview = view.state == flow_state::preview &&
                                 (!viewed_ || view_.state != flow_state::preview || view.duration != view_.duration);
    view_ = view;
    viewed_ = true;
    const flow_state state = view.state;
    const bool taking = state == flow_state::recording || state == flow_state::locked;
    bars_->setVisible(taking);
    bars_->setValues(view.levels);
    lockLabel_->setVisible(state == flow_state::recording);
    lockLabel_->setContentsMargins(0, 0, 0, static_cast<int>(view.lock_padding));
    lockOpacity_->setOpacity(std::clamp(view.chevron_alpha, 0.0, 1.0));
    stop_->setVisible(state == flow_state::locked);
    record_->setVisible(state != flow_state::preview);
    preview_->setVisible(state == flow_state::preview);
    const QString time = clock(view.duration.count());
    switch (state) {
    case flow_state::recording:
        status_->setText(QString::fromUtf8("● %1   ‹ slide to cancel").arg(time));
        statusOpacity_->setOpacity(std::max(0.2, view.slide_to_cancel_alpha));
        break;
    case flow_state::locked:
        status_->setText(QString::fromUtf8("● %1   locked").arg(time));
        statusOpacity_->setOpacity(1);
        break;
    case flow_state::showing_tip:
        status_->setText(tr("Hold to record, release to send"));
        statusOpacity_->setOpacity(1);
        break;
    case flow_state::preview: {
        status_->setText(QString("%1 / %2").arg(clock(view.preview_position.count()), time));
        statusOpacity_->setOpacity(1);
        previewWave_->setValues(view.waveform);
        previewWave_->setProgress(view.duration.count() > 0 ? view.preview_position / view.duration : 0);
        previewPlay_->setIcon(style()->standardIcon(view.preview_playing ? QStyle::SP_MediaPause
                                                                          : QStyle::SP_MediaPlay));
        label(previewPlay_, view.preview_playing ? tr("Pause the recording") : tr("Play the recording"));
        if (enteringPreview) {
            trimStart_->setValue(0);
            trimEnd_->setValue(trimSteps);
        }
        break;
    }
    case flow_state::idle:
        status_->setText(tr("Hold to record"));
        statusOpacity_->setOpacity(1);
        break;
    }
    label(record_, QString::fromStdString(view.accessible_description));
}

}  // namespace voicenote_qt
