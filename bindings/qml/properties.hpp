/* properties.hpp — private: how the types' properties change. A value is stored and its NOTIFY signal emitted only
 * when it differs; a setting the library reads when it makes its object (a device, a directory, the flow's times)
 * is refused once that object is made, with `failed("VN_E_MISUSE", …)`. And the library's float lists as QML's.
 */
#ifndef VOICENOTE_QML_PROPERTIES_HPP
#define VOICENOTE_QML_PROPERTIES_HPP

#include "failure.hpp"

#include <QList>
#include <QString>
#include <QVariantMap>

#include <voicenote.hpp>

#include <string>
#include <utility>
#include <vector>

namespace voicenote_qml {

/** Floats from the library (levels, waveforms) as the list QML reads. */
inline QList<qreal> toRealList(const std::vector<float> &values) {
    QList<qreal> list;
    list.reserve(static_cast<qsizetype>(values.size()));
    for (float value : values) list.append(value);
    return list;
}

/** A name → value map of strings (QML's `({ "Authorization": "Bearer …" })`) as the ordered pairs the library
 *  takes: request headers, query parameters. */
inline std::vector<std::pair<std::string, std::string>> toPairs(const QVariantMap &map) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        pairs.emplace_back(it.key().toStdString(), it.value().toString().toStdString());
    return pairs;
}

/** Whether `location` is an http(s) URL (the library reads those with HTTP options). */
inline bool isHttpUrl(const QString &location) {
    return location.startsWith(QLatin1String("http://"), Qt::CaseInsensitive) ||
           location.startsWith(QLatin1String("https://"), Qt::CaseInsensitive);
}

/** HTTP options carrying `headers` (the library's defaults for the rest). */
inline voicenote::http_options httpOptions(const QVariantMap &headers) {
    voicenote::http_options options;
    options.headers = toPairs(headers);
    return options;
}

/** Stores `value` in `field` and emits `object`'s `changed` when it differs; whether it did. */
template <class Object, class Value, class Given>
bool updateProperty(Object *object, Value &field, const Given &value, void (Object::*changed)()) {
    if (field == value) return false;
    field = value;
    Q_EMIT(object->*changed)();
    return true;
}

/**
 * Sets a setting read when `object`'s library object (`what`: "player", "recorder", "flow") is made: while it is not
 * (`made` false), as updateProperty(); once it is, refused with `failed("VN_E_MISUSE", …)` and left as it was.
 */
template <class Object, class Value>
void updateSetting(Object *object, bool made, const char *what, const char *name, Value &field, const Value &value,
                   void (Object::*changed)()) {
    if (field == value) return;
    if (made) {
        Q_EMIT object->failed(statusName(VN_E_MISUSE),
                              QStringLiteral("%1 is read when the %2 is made; it is made already")
                                  .arg(QLatin1String(name), QLatin1String(what)));
        return;
    }
    updateProperty(object, field, value, changed);
}

}  // namespace voicenote_qml

#endif
