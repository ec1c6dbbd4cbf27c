/* upload_server.hpp — the singleton `UploadServer` of the tests' module VoicenoteTest: an HTTP server on 127.0.0.1 in
 * the test's process (QTcpServer, on the GUI thread's loop) for the Uploader's suite and the notes the controls read
 * from URLs: it reads each request whole (Content-Length or chunked) and keeps what the test checks. A POST is
 * answered 200 with the uploaded URL (`file` and `content_uri`), or 500 for a path under /fail/. A GET of a note
 * noteUrl() made is answered with the note's bytes (audio/ogg, no byte ranges): at once under /notes/; under /slow/
 * 2 KiB, then 1 KiB every 50 ms; under /stalled/ 2 KiB and then nothing, until the client closes; under /private/
 * at once with the header `Authorization: <privateAuthorization>`, else 401 (counted in notesRefused).
 */
#ifndef VOICENOTE_QML_TESTS_UPLOAD_SERVER_HPP
#define VOICENOTE_QML_TESTS_UPLOAD_SERVER_HPP

#include <QHash>
#include <QStringList>
#include <QObject>
#include <QtQml/qqmlregistration.h>
#include <QTcpServer>
#include <QVariantList>

class QTcpSocket;

class UploadServer : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    /** The server's base URL, http://127.0.0.1:PORT. */
    Q_PROPERTY(QString url READ url CONSTANT)
    /** The requests answered so far, oldest first: {method, path, contentType, authorization, bodySize}. */
    Q_PROPERTY(QVariantList requests READ requests NOTIFY requestsChanged)
    /** The notes' bodies sent whole so far. */
    Q_PROPERTY(int notesSent READ notesSent NOTIFY notesChanged)
    /** The notes' connections the client closed before their body ended. */
    Q_PROPERTY(int notesClosedEarly READ notesClosedEarly NOTIFY notesChanged)
    /** The notes' GETs under /private/ refused (401) for a missing or wrong Authorization header. */
    Q_PROPERTY(int notesRefused READ notesRefused NOTIFY notesChanged)
    /** The Authorization header a /private/ note needs. */
    Q_PROPERTY(QString privateAuthorization READ privateAuthorization CONSTANT)
    /** The notes' bodies being sent now. */
    Q_PROPERTY(int notesSending READ notesSending NOTIFY notesChanged)

public:
    /** Listens on 127.0.0.1 on a free port; a failure is fatal (qFatal). */
    explicit UploadServer(QObject *parent = nullptr);
    /** Closes the connections left open (a stalled note's), without calling back here. */
    ~UploadServer() override;

    QString url() const;
    QVariantList requests() const { return requests_; }
    int notesSent() const { return notesSent_; }
    int notesClosedEarly() const { return notesClosedEarly_; }
    int notesSending() const { return int(sending_.size()); }
    int notesRefused() const { return notesRefused_; }
    QString privateAuthorization() const { return QStringLiteral("Bearer qml-test-token"); }

    /** The URL serving the file at `path`: `route` "notes" (at once), "slow" (trickled), "stalled" or "private"
     *  (at once, with privateAuthorization only). */
    Q_INVOKABLE QString noteUrl(const QString &path, const QString &route);

Q_SIGNALS:
    void requestsChanged();
    void notesChanged();

private:
    void readable(QTcpSocket *socket);
    void answer(QTcpSocket *socket, const QByteArray &head, const QByteArray &body);
    /** Answers a GET of a note (`path` /ROUTE/N.ogg, the request's `head` for its headers); whether it was one. */
    bool answerNote(QTcpSocket *socket, const QByteArray &head, const QByteArray &path);
    /** Writes the next part of a trickled body; closes the connection after the last. */
    void trickle(QTcpSocket *socket);
    void closed(QTcpSocket *socket);

    QTcpServer server_;
    QHash<QTcpSocket *, QByteArray> received_;
    QVariantList requests_;
    QStringList notes_;                       // noteUrl()'s files; N in a note's URL indexes them
    QHash<QTcpSocket *, QByteArray> sending_; // a note's body still to send, per connection
    int notesSent_ = 0;
    int notesClosedEarly_ = 0;
    int notesRefused_ = 0;
};

#endif
