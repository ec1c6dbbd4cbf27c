#include "upload_server.hpp"

#include <QFile>
#include <QHostAddress>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>

namespace {

/** A header's value in a request head (names compared without case), "" when absent. */
QByteArray headerValue(const QByteArray &head, const QByteArray &name) {
    for (const QByteArray &line : head.split('\n')) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == name.toLower()) return line.mid(colon + 1).trimmed();
    }
    return {};
}

/** A chunked body decoded; whether it is complete (the last, empty chunk came). */
bool decodeChunked(const QByteArray &raw, QByteArray &body) {
    qsizetype at = 0;
    body.clear();
    for (;;) {
        qsizetype end = raw.indexOf("\r\n", at);
        if (end < 0) return false;
        bool ok = false;
        qsizetype size = raw.mid(at, end - at).split(';').first().trimmed().toLongLong(&ok, 16);
        if (!ok) return false;
        if (size == 0) return raw.indexOf("\r\n", end + 2) >= 0;
        if (raw.size() < end + 2 + size + 2) return false;
        body += raw.mid(end + 2, size);
        at = end + 2 + size + 2;
    }
}

}  // namespace

UploadServer::UploadServer(QObject *parent) : QObject(parent) {
    if (!server_.listen(QHostAddress::LocalHost, 0)) qFatal("the upload server cannot listen");
    connect(&server_, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = server_.nextPendingConnection()) {
            connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readable(socket); });
            connect(socket, &QTcpSocket::disconnected, this, [this, socket] { closed(socket); });
        }
    });
}

UploadServer::~UploadServer() {
    // The connections (the server's children) go with server_, after the members their handlers use.
    for (QTcpSocket *socket : server_.findChildren<QTcpSocket *>()) socket->disconnect(this);
}

void UploadServer::closed(QTcpSocket *socket) {
    received_.remove(socket);
    if (sending_.remove(socket)) {
        ++notesClosedEarly_;
        Q_EMIT notesChanged();
    }
    socket->deleteLater();
}

QString UploadServer::noteUrl(const QString &path, const QString &route) {
    notes_.append(path);
    return QStringLiteral("%1/%2/%3.ogg").arg(url(), route).arg(notes_.size() - 1);
}

bool UploadServer::answerNote(QTcpSocket *socket, const QByteArray &head, const QByteArray &path) {
    const QList<QByteArray> parts = path.split('/');  // "", ROUTE, N.ogg
    if (parts.size() != 3 || !parts[2].endsWith(".ogg")) return false;
    QByteArray route = parts[1];
    if (route != "notes" && route != "slow" && route != "stalled" && route != "private") return false;
    if (route == "private") {
        if (headerValue(head, "Authorization") != privateAuthorization().toLatin1()) {
            ++notesRefused_;
            socket->write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            socket->disconnectFromHost();
            Q_EMIT notesChanged();
            return true;
        }
        route = "notes";
    }
    bool ok = false;
    const qsizetype index = parts[2].chopped(4).toLongLong(&ok);
    if (!ok || index < 0 || index >= notes_.size()) return false;
    QFile file(notes_[index]);
    if (!file.open(QIODevice::ReadOnly)) return false;
    const QByteArray bytes = file.readAll();
    socket->write("HTTP/1.1 200 OK\r\nContent-Type: audio/ogg\r\nContent-Length: " + QByteArray::number(bytes.size()) +
                  "\r\nConnection: close\r\n\r\n");
    const qsizetype first = route == "notes" ? bytes.size() : std::min<qsizetype>(bytes.size(), 2048);
    socket->write(bytes.left(first));
    sending_.insert(socket, bytes.mid(first));
    if (route == "slow") {
        auto *timer = new QTimer(socket);  // goes with the connection
        connect(timer, &QTimer::timeout, this, [this, socket] { trickle(socket); });
        timer->start(50);
    } else if (route == "notes") {
        trickle(socket);
    }
    Q_EMIT notesChanged();
    return true;
}

void UploadServer::trickle(QTcpSocket *socket) {
    auto rest = sending_.find(socket);
    if (rest == sending_.end()) return;
    socket->write(rest->left(1024));
    rest->remove(0, std::min<qsizetype>(rest->size(), 1024));
    if (!rest->isEmpty()) return;
    sending_.erase(rest);
    ++notesSent_;
    Q_EMIT notesChanged();
    socket->disconnectFromHost();
}

QString UploadServer::url() const { return QStringLiteral("http://127.0.0.1:%1").arg(server_.serverPort()); }

void UploadServer::readable(QTcpSocket *socket) {
    QByteArray &raw = received_[socket];
    raw += socket->readAll();
    qsizetype headEnd = raw.indexOf("\r\n\r\n");
    if (headEnd < 0) return;
    QByteArray head = raw.left(headEnd);
    QByteArray rest = raw.mid(headEnd + 4);
    if (headerValue(head, "Expect").toLower() == "100-continue" && !raw.contains("\x01continued")) {
        socket->write("HTTP/1.1 100 Continue\r\n\r\n");
        raw.insert(headEnd, "\x01continued");  // marks the head as answered (inside the head, not the body)
        return;
    }
    QByteArray body;
    if (headerValue(head, "Transfer-Encoding").toLower() == "chunked") {
        if (!decodeChunked(rest, body)) return;
    } else {
        qsizetype length = headerValue(head, "Content-Length").toLongLong();
        if (rest.size() < length) return;
        body = rest.left(length);
    }
    raw.clear();
    answer(socket, head, body);
}

void UploadServer::answer(QTcpSocket *socket, const QByteArray &head, const QByteArray &body) {
    const QList<QByteArray> requestLine = head.left(head.indexOf("\r\n")).split(' ');
    const QByteArray path = requestLine.value(1);
    if (requestLine.value(0) == "GET" && answerNote(socket, head, path)) return;
    QVariantMap request;
    request[QStringLiteral("method")] = QString::fromLatin1(requestLine.value(0));
    request[QStringLiteral("path")] = QString::fromLatin1(path);
    request[QStringLiteral("contentType")] = QString::fromLatin1(headerValue(head, "Content-Type"));
    request[QStringLiteral("authorization")] = QString::fromLatin1(headerValue(head, "Authorization"));
    request[QStringLiteral("bodySize")] = body.size();
    requests_.append(request);
    QByteArray status = "200 OK";
    const QByteArray number = QByteArray::number(requests_.size());
    QByteArray json = "{\"file\":\"https://cdn.example.com/" + number + ".ogg\",\"content_uri\":\"mxc://example.com/" +
                      number + "\"}";
    if (path.startsWith("/fail/")) {
        status = "500 Internal Server Error";
        json = "{\"message\":\"the test server refuses\"}";
    }
    socket->write("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " +
                  QByteArray::number(json.size()) + "\r\nConnection: close\r\n\r\n" + json);
    socket->disconnectFromHost();
    Q_EMIT requestsChanged();
}
