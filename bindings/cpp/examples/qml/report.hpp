/* report.hpp — what the chat example tells a test driving it: each event a JSON object on a line of its own in a
 * file (--report FILE), flushed at once, so a test can wait for a line. Without a file it writes nothing. */
#ifndef VOICENOTE_QML_CHAT_REPORT_HPP
#define VOICENOTE_QML_CHAT_REPORT_HPP

#include <QFile>
#include <QObject>
#include <QString>
#include <QVariantMap>

class Report : public QObject {
    Q_OBJECT
    /** Whether events are written (a file was given). */
    Q_PROPERTY(bool enabled READ enabled CONSTANT)

public:
    /** A report into `path` (truncated), or none for an empty path. A file that cannot be opened is fatal. */
    explicit Report(const QString &path, QObject *parent = nullptr);

    bool enabled() const { return file_.isOpen(); }

    /** Writes `event` as a line of JSON. */
    Q_INVOKABLE void write(const QVariantMap &event);

private:
    QFile file_;
};

#endif
