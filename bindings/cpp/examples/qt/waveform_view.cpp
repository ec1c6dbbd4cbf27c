#include "waveform_view.hpp"

#include <voicenote.hpp>
#include <voicenote/analysis.hpp>

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace voicenote_qt {

namespace {
const QColor played = QColor::fromRgbF(0.12f, 0.44f, 0.92f);
const QColor kept = QColor::fromRgbF(0.45f, 0.48f, 0.53f);
const QColor trimmedAway = QColor::fromRgbF(0.82f, 0.83f, 0.85f);
const QColor handle = QColor::fromRgbF(0.9f, 0.55f, 0.1f);
constexpr double barPitch = voicenote::waveform_bar_pitch, barWidth = voicenote::waveform_bar_width;
}  // namespace

WaveformView::WaveformView(std::vector<float> values, int height, std::function<void(double)> onScrub, QWidget *parent)
    : QWidget(parent), values_(std::move(values)), onScrub_(std::move(onScrub)) {
    setFixedHeight(height);
    setMinimumWidth(220);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    if (onScrub_) {
        setCursor(Qt::PointingHandCursor);
        const QString text = tr("Waveform: click or drag to move in the voice message");
        setAccessibleName(text);
        setToolTip(text);
    }
}

void WaveformView::setValues(std::vector<float> values) {
    if (values == values_) return;
    values_ = std::move(values);
    update();
}

void WaveformView::setProgress(double fraction) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    if (fraction == progress_) return;
    progress_ = fraction;
    update();
}

void WaveformView::setTrim(std::optional<std::pair<double, double>> trim) {
    trim_ = trim;
    update();
}

QSize WaveformView::sizeHint() const { return {220, height()}; }

void WaveformView::paintEvent(QPaintEvent *) {
    const double width = this->width(), height = this->height();
    std::vector<float> heights;
    if (!values_.empty() && width > 0) {
        try {
            heights = voicenote::waveform_bars(values_, width, height);
        } catch (const voicenote::error &e) {
            qWarning("voicenote: waveform_bars: %s", e.what());
        }
    }
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const double playedTo = progress_ * width;
    for (std::size_t index = 0; index < heights.size(); ++index) {
        const double x = static_cast<double>(index) * barPitch, bar = heights[index];
        const bool inside = !trim_ || (trim_->first * width <= x && x <= trim_->second * width);
        const QColor &colour = x < playedTo ? played : inside ? kept : trimmedAway;
        painter.fillRect(QRectF(x, (height - bar) / 2, barWidth, bar), colour);
    }
    if (trim_) {
        for (double fraction : {trim_->first, trim_->second})
            painter.fillRect(QRectF(std::min(width - 2, fraction * width), 0, 2, height), handle);
    }
}

void WaveformView::mousePressEvent(QMouseEvent *event) {
    if (!onScrub_ || event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    scrubAt(event->position().x());
}

void WaveformView::mouseMoveEvent(QMouseEvent *event) {
    if (!onScrub_ || !(event->buttons() & Qt::LeftButton)) return QWidget::mouseMoveEvent(event);
    scrubAt(event->position().x());
}

void WaveformView::scrubAt(double x) {
    onScrub_(std::clamp(x / std::max(1, width()), 0.0, 1.0));
}

}  // namespace voicenote_qt
