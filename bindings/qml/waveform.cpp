#include "waveform.hpp"

#include "properties.hpp"

#include <QAccessible>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMetaType>
#include <QMouseEvent>
#include <QPalette>
#include <QSGFlatColorMaterial>
#include <QSGGeometryNode>
#include <QtQml/qqml.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace voicenote_qml {

namespace {

constexpr qreal kMinimumBarHeight = 2;  // a silent bar still shows as a line

qreal clampUnit(qreal value) { return std::isnan(value) ? 0 : std::clamp<qreal>(value, 0, 1); }

/** One flat-coloured node of triangles, owned by its parent. */
QSGGeometryNode *makeBarsNode() {
    auto *node = new QSGGeometryNode;
    auto *geometry = new QSGGeometry(QSGGeometry::defaultAttributes_Point2D(), 0);
    geometry->setDrawingMode(QSGGeometry::DrawTriangles);
    node->setGeometry(geometry);
    node->setFlag(QSGNode::OwnsGeometry);
    node->setMaterial(new QSGFlatColorMaterial);
    node->setFlag(QSGNode::OwnsMaterial);
    return node;
}

/** Replaces `node`'s triangles with `rects` (two triangles each) in `color`. */
void fillBarsNode(QSGGeometryNode *node, const std::vector<QRectF> &rects, const QColor &color) {
    QSGGeometry *geometry = node->geometry();
    geometry->allocate(static_cast<int>(rects.size() * 6));
    QSGGeometry::Point2D *vertex = geometry->vertexDataAsPoint2D();
    for (const QRectF &r : rects) {
        const float left = float(r.left()), right = float(r.right()), top = float(r.top()), bottom = float(r.bottom());
        vertex[0].set(left, top);
        vertex[1].set(right, top);
        vertex[2].set(left, bottom);
        vertex[3].set(right, top);
        vertex[4].set(right, bottom);
        vertex[5].set(left, bottom);
        vertex += 6;
    }
    node->markDirty(QSGNode::DirtyGeometry);
    auto *material = static_cast<QSGFlatColorMaterial *>(node->material());
    if (material->color() != color) {
        material->setColor(color);
        node->markDirty(QSGNode::DirtyMaterial);
    }
}

}  // namespace

Waveform::Waveform(QQuickItem *parent) : QQuickItem(parent) {
    setFlag(ItemHasContents);
    setActiveFocusOnTab(true);
    setAcceptedMouseButtons(Qt::LeftButton);
    qGuiApp->installEventFilter(this);  // the palette's colours follow the application's palette
}

void Waveform::setValues(const QList<qreal> &values) {
    if (updateProperty(this, values_, values, &Waveform::valuesChanged)) update();
}

void Waveform::setProgress(qreal progress) {
    if (!updateProperty(this, progress_, clampUnit(progress), &Waveform::progressChanged)) return;
    update();
    if (QAccessible::isActive()) {
        QAccessibleValueChangeEvent event(this, progress_);
        QAccessible::updateAccessibility(&event);
    }
}

QColor Waveform::color() const {
    if (color_.isValid()) return color_;
    QColor text = QGuiApplication::palette().color(QPalette::WindowText);
    text.setAlphaF(0.5f);
    return text;
}

void Waveform::setColor(const QColor &color) {
    if (updateProperty(this, color_, color, &Waveform::colorChanged)) update();
}

QColor Waveform::playedColor() const {
    return playedColor_.isValid() ? playedColor_ : QGuiApplication::palette().color(QPalette::Highlight);
}

void Waveform::setPlayedColor(const QColor &color) {
    if (updateProperty(this, playedColor_, color, &Waveform::playedColorChanged)) update();
}

void Waveform::setSpacing(qreal spacing) {
    // NaN and negatives are ignored
    if (spacing >= 0 && updateProperty(this, spacing_, spacing, &Waveform::spacingChanged)) update();
}

void Waveform::setStepSize(qreal step) {
    updateProperty(this, stepSize_, clampUnit(step), &Waveform::stepSizeChanged);
}

bool Waveform::eventFilter(QObject *watched, QEvent *event) {
    if (watched == qGuiApp && event->type() == QEvent::ApplicationPaletteChange) {
        if (!color_.isValid()) Q_EMIT colorChanged();
        if (!playedColor_.isValid()) Q_EMIT playedColorChanged();
        update();
    }
    return QQuickItem::eventFilter(watched, event);
}

void Waveform::geometryChange(const QRectF &newGeometry, const QRectF &oldGeometry) {
    QQuickItem::geometryChange(newGeometry, oldGeometry);
    if (newGeometry.size() != oldGeometry.size()) update();
}

QSGNode *Waveform::updatePaintNode(QSGNode *node, UpdatePaintNodeData *) {
    // Runs on the render thread while the GUI thread waits: the properties may be read here.
    if (!node) {
        node = new QSGNode;
        node->appendChildNode(makeBarsNode());  // still to play
        node->appendChildNode(makeBarsNode());  // played
    }
    std::vector<QRectF> toPlay, played;
    const qreal w = width(), h = height();
    const qsizetype count = values_.size();
    if (count > 0 && w > 0 && h > 0) {
        const qreal slot = w / qreal(count);
        const qreal split = progress_ * w;
        for (qsizetype i = 0; i < count; ++i) {
            qreal left = i * slot + spacing_ / 2, right = (i + 1) * slot - spacing_ / 2;
            if (right - left < 1) right = left + 1;  // too many bars for the width: each at least a pixel
            const qreal barHeight = std::max(kMinimumBarHeight, clampUnit(values_[i]) * h);
            const qreal top = (h - barHeight) / 2;
            const qreal bottom = top + barHeight;
            if (split > left) played.emplace_back(QPointF(left, top), QPointF(std::min(right, split), bottom));
            if (split < right) toPlay.emplace_back(QPointF(std::max(left, split), top), QPointF(right, bottom));
        }
    }
    fillBarsNode(static_cast<QSGGeometryNode *>(node->childAtIndex(0)), toPlay, color());
    fillBarsNode(static_cast<QSGGeometryNode *>(node->childAtIndex(1)), played, playedColor());
    return node;
}

void Waveform::requestSeekAt(qreal x) {
    if (width() > 0) Q_EMIT seekRequested(clampUnit(x / width()));
}

void Waveform::mousePressEvent(QMouseEvent *event) {
    forceActiveFocus(Qt::MouseFocusReason);
    requestSeekAt(event->position().x());
    event->accept();
}

void Waveform::mouseMoveEvent(QMouseEvent *event) {
    requestSeekAt(event->position().x());
    event->accept();
}

void Waveform::mouseReleaseEvent(QMouseEvent *event) { event->accept(); }

void Waveform::keyPressEvent(QKeyEvent *event) {
    switch (event->key()) {
    case Qt::Key_Left:
        Q_EMIT seekRequested(clampUnit(progress_ - stepSize_));
        break;
    case Qt::Key_Right:
        Q_EMIT seekRequested(clampUnit(progress_ + stepSize_));
        break;
    case Qt::Key_Home:
        Q_EMIT seekRequested(0);
        break;
    case Qt::Key_End:
        Q_EMIT seekRequested(1);
        break;
    default:
        QQuickItem::keyPressEvent(event);
        return;
    }
    event->accept();
}

void Waveform::componentComplete() {
    QQuickItem::componentComplete();
    exposeAsSlider();
}

void Waveform::exposeAsSlider() {
    // Qt Quick's `Accessible` attached object, found through the type QtQuick registers (its class is private API):
    // role Slider makes Qt's accessible item read `value`, `minimumValue`, `maximumValue` and `stepSize` here.
    const QMetaObject *attachedType = QMetaType::fromName("QQuickAccessibleAttached*").metaObject();
    if (!attachedType) return;
    QObject *accessible = qmlAttachedPropertiesObject(this, qmlAttachedPropertiesFunction(this, attachedType), true);
    if (!accessible) return;
    const int role = accessible->property("role").toInt();
    if (role == QAccessible::NoRole || role == QAccessible::Client)  // not set by the QML that declared the item
        accessible->setProperty("role", QVariant::fromValue(QAccessible::Slider));
    if (accessible->property("name").toString().isEmpty())
        accessible->setProperty("name", tr("Voice message waveform"));
}

}  // namespace voicenote_qml
