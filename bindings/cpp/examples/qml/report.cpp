#include "report.hpp"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <cstdlib>

Report::Report(const QString &path, QObject *parent) : QObject(parent), file_(path) {
    if (path.isEmpty()) return;
    if (!file_.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
        std::fprintf(stderr, "voicenote-qml-chat: cannot write %s\n", qPrintable(path));
        std::exit(2);
    }
}

void Report::write(const QVariantMap &event) {
    if (!file_.isOpen()) return;
    file_.write(QJsonDocument(QJsonObject::fromVariantMap(event)).toJson(QJsonDocument::Compact));
    file_.write("\n");
    file_.flush();
}
