/* waveform_view.hpp — a voice message's waveform as Stream draws it: voicenote::waveform_bars() gives the bar heights
 * (1.5 px bars every 3.5 px), the played part in the accent colour, and optional trim handles. A click or a drag on it
 * calls the scrub callback with the fraction under the pointer. */
#ifndef VOICENOTE_QT_WAVEFORM_VIEW_HPP
#define VOICENOTE_QT_WAVEFORM_VIEW_HPP

#include <QWidget>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace voicenote_qt {

class WaveformView : public QWidget {
public:
    /** A view `height` px tall (at least 220 px wide, growing with its row); `onScrub` null: not interactive. */
    explicit WaveformView(std::vector<float> values = {}, int height = 36,
                          std::function<void(double)> onScrub = nullptr, QWidget *parent = nullptr);

    void setValues(std::vector<float> values);
    const std::vector<float> &values() const { return values_; }
    /** The played fraction, 0…1 (drawn in the accent colour). */
    void setProgress(double fraction);
    double progress() const { return progress_; }
    /** The trim handles as fractions, or none. */
    void setTrim(std::optional<std::pair<double, double>> trim);
    std::optional<std::pair<double, double>> trim() const { return trim_; }

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    void scrubAt(double x);

    std::vector<float> values_;
    double progress_ = 0;
    std::optional<std::pair<double, double>> trim_;
    std::function<void(double)> onScrub_;
};

}  // namespace voicenote_qt

#endif
