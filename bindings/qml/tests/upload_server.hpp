/* upload_server.hpp — an HTTP server on 127.0.0.1 in the test's process (QTcpServer, on the GUI thread's loop) for
 * the Uploader's suite: it reads each request whole (Content-Length or chunked), keeps what the test checks, and
 * answers 200 with the uploaded URL (`file` and `content_uri`), or 500 for a path under /fail/.
 */
#ifndef VOICENOTE_QML_TESTS_UPLOAD_SERVER_HPP
#define VOICENOTE_QML_TESTS_UPLOAD_SERVER_HPP

#include <QHash>
#include <QObject>
#include <QTcpServer>
#include <QVariantList>

class QTcpSocket;

class UploadServer : public QObject {
    Q_OBJECT
    /** The server's base URL, http://127.0.0.1:PORT. */
    Q_PROPERTY(QString url READ url CONSTANT)
    /** The requests answered so far, oldest first: {method, path, contentType, authorization, bodySize}. */
    Q_PROPERTY(QVariantList requests READ requests NOTIFY requestsChanged)

public:
    /** Listens on 127.0.0.1 on a free port; a failure is fatal (qFatal). */
    explicit UploadServer(QObject *parent = nullptr);

    QString url() const;
    QVariantList requests() const { return requests_; }

Q_SIGNALS:
    void requestsChanged();

private:
    void readable(QTcpSocket *socket);
    void answer(QTcpSocket *socket, const QByteArray &head, const QByteArray &body);

    QTcpServer server_;
    QHash<QTcpSocket *, QByteArray> received_;
    QVariantList requests_;
};

#endif
