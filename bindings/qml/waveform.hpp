/* waveform.hpp — `Waveform`: a voice note's bars as a scene-graph item.
 *
 *     Waveform { values: note.waveform; progress: player.position / player.duration
 *                onSeekRequested: (fraction) => player.seek(fraction * player.duration) }
 *
 * A QQuickItem with its own geometry: one node of triangles for the bars still to play and one for the played
 * part (a bar the progress crosses is split there), each a flat colour, rebuilt on the render thread only when the
 * values, the progress, the size or a colour changed — no painting on the CPU. The colours default to the
 * application's palette (the text colour, faded, and the highlight). A press or a drag on it, and the arrow, Home
 * and End keys, ask for a seek (`seekRequested`); the owner moves the player and binds `progress` back. For
 * assistive technology it is a slider (Accessible.role Slider) whose value is the progress, 0…1.
 */
#ifndef VOICENOTE_QML_WAVEFORM_HPP
#define VOICENOTE_QML_WAVEFORM_HPP

#include <QColor>
#include <QList>
#include <QQuickItem>
#include <QtQml/qqmlregistration.h>

namespace voicenote_qml {

class Waveform : public QQuickItem {
    Q_OBJECT
    QML_ELEMENT
    /** The bars' heights, 0…1 each (values outside are clamped), one bar each. */
    Q_PROPERTY(QList<qreal> values READ values WRITE setValues NOTIFY valuesChanged)
    /** How much has played, 0…1 (clamped); bars left of it are drawn in `playedColor`. */
    Q_PROPERTY(qreal progress READ progress WRITE setProgress NOTIFY progressChanged)
    /** The bars still to play; unset (or reset): the palette's text colour at half opacity. */
    Q_PROPERTY(QColor color READ color WRITE setColor RESET resetColor NOTIFY colorChanged)
    /** The played bars; unset (or reset): the palette's highlight colour. */
    Q_PROPERTY(QColor playedColor READ playedColor WRITE setPlayedColor RESET resetPlayedColor NOTIFY
                   playedColorChanged)
    /** The gap between bars, in pixels, 0 or more (default 2). */
    Q_PROPERTY(qreal spacing READ spacing WRITE setSpacing NOTIFY spacingChanged)
    /** How far an arrow key moves the seek, 0…1 (default 0.05). */
    Q_PROPERTY(qreal stepSize READ stepSize WRITE setStepSize NOTIFY stepSizeChanged)
    /** For assistive technology (a slider's value): the progress. */
    Q_PROPERTY(qreal value READ progress NOTIFY progressChanged)
    /** For assistive technology: the slider's least value, 0. */
    Q_PROPERTY(qreal minimumValue READ minimumValue CONSTANT)
    /** For assistive technology: the slider's greatest value, 1. */
    Q_PROPERTY(qreal maximumValue READ maximumValue CONSTANT)

public:
    /** An empty waveform that takes focus by tab and accepts the left button. */
    explicit Waveform(QQuickItem *parent = nullptr);

    QList<qreal> values() const { return values_; }
    void setValues(const QList<qreal> &values);
    qreal progress() const { return progress_; }
    void setProgress(qreal progress);
    QColor color() const;
    void setColor(const QColor &color);
    void resetColor() { setColor(QColor()); }
    QColor playedColor() const;
    void setPlayedColor(const QColor &color);
    void resetPlayedColor() { setPlayedColor(QColor()); }
    qreal spacing() const { return spacing_; }
    void setSpacing(qreal spacing);
    qreal stepSize() const { return stepSize_; }
    void setStepSize(qreal step);
    qreal minimumValue() const { return 0; }
    qreal maximumValue() const { return 1; }

Q_SIGNALS:
    void valuesChanged();
    void progressChanged();
    void colorChanged();
    void playedColorChanged();
    void spacingChanged();
    void stepSizeChanged();
    /** The user asked to move to `fraction` (0…1) of the note, by pointer or key. */
    void seekRequested(qreal fraction);

protected:
    QSGNode *updatePaintNode(QSGNode *node, UpdatePaintNodeData *data) override;
    void geometryChange(const QRectF &newGeometry, const QRectF &oldGeometry) override;
    void componentComplete() override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void requestSeekAt(qreal x);
    void exposeAsSlider();

    QList<qreal> values_;
    qreal progress_ = 0;
    QColor color_;
    QColor playedColor_;
    qreal spacing_ = 2;
    qreal stepSize_ = 0.05;
};

}  // namespace voicenote_qml

#endif
