/* uploader.hpp — `Uploader`: a voicenote::uploader as a QML type.
 *
 *     Uploader {
 *         endpoint: "https://chat.example/channels/messaging/general/file"
 *         headers: ({ "Authorization": token, "Stream-Auth-Type": "jwt" })
 *         onUploaded: (payloadJson) => ...
 *     }
 *     uploader.upload(take)   // a path or file:// URL; progress, then uploaded or failed
 *
 * The uploader is made at the first upload() with the settings below (read then; a change afterwards is refused
 * with failed "VN_E_MISUSE"); its events arrive on the GUI thread through the thread's event bridge.
 */
#ifndef VOICENOTE_QML_UPLOADER_HPP
#define VOICENOTE_QML_UPLOADER_HPP

#include <voicenote.hpp>

#include <QObject>
#include <QString>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace voicenote_qml {

class Uploader : public QObject {
    Q_OBJECT
    QML_ELEMENT
    /** The http(s) URL uploads go to (required). */
    Q_PROPERTY(QString endpoint READ endpoint WRITE setEndpoint NOTIFY settingsChanged)
    /** How the file is framed: Multipart (Stream's file upload, the default) or Raw (Matrix's media upload). */
    Q_PROPERTY(Mode mode READ mode WRITE setMode NOTIFY settingsChanged)
    /** Request headers, name → value (strings), sent in the names' order. */
    Q_PROPERTY(QVariantMap headers READ headers WRITE setHeaders NOTIFY settingsChanged)
    /** Query parameters added to the endpoint, name → value (strings), in the names' order (Stream: `api_key`). */
    Q_PROPERTY(QVariantMap query READ query WRITE setQuery NOTIFY settingsChanged)
    /** The key of the response's JSON object holding the uploaded URL; empty: the mode's (`file`, `content_uri`). */
    Q_PROPERTY(QString urlKey READ urlKey WRITE setUrlKey NOTIFY settingsChanged)
    /** Where the last upload is; Pending before any. */
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    /** How much of the upload was sent, 0…1. */
    Q_PROPERTY(qreal progress READ progress NOTIFY progressChanged)
    /** The last uploaded payload (Stream's attachment JSON with its `asset_url`); "" before any. */
    Q_PROPERTY(QString payloadJson READ payloadJson NOTIFY stateChanged)

public:
    /** How uploads are framed (voicenote::upload_mode). */
    enum Mode {
        Multipart = VN_UPLOAD_MULTIPART, /**< multipart/form-data. */
        Raw = VN_UPLOAD_RAW,             /**< The bare body. */
        Matrix = VN_UPLOAD_MATRIX,       /**< Matrix's upload to a content URI created first (the endpoint is the
                                              homeserver's base URL). */
        Tus = VN_UPLOAD_TUS              /**< tus 1.0.0, resumable (the endpoint is the creation URL). */
    };
    Q_ENUM(Mode)
    /** Where an upload is (voicenote::upload_state). */
    enum State {
        Pending = VN_UPLOAD_PENDING,     /**< Accepted, not sending yet. */
        Uploading = VN_UPLOAD_UPLOADING, /**< Sending. */
        Failed = VN_UPLOAD_FAILED,       /**< Failed or cancelled; the file is untouched. */
        Uploaded = VN_UPLOAD_UPLOADED    /**< Done. */
    };
    Q_ENUM(State)

    /** An uploader with no endpoint yet. */
    explicit Uploader(QObject *parent = nullptr);
    ~Uploader() override;

    QString endpoint() const { return endpoint_; }
    void setEndpoint(const QString &endpoint);
    Mode mode() const { return mode_; }
    void setMode(Mode mode);
    QVariantMap headers() const { return headers_; }
    void setHeaders(const QVariantMap &headers);
    QVariantMap query() const { return query_; }
    void setQuery(const QVariantMap &query);
    QString urlKey() const { return urlKey_; }
    void setUrlKey(const QString &key);
    State state() const { return state_; }
    qreal progress() const { return progress_; }
    QString payloadJson() const { return payloadJson_; }

    /** Uploads the file at `location` (a path or file:// URL); a voice recording's duration and waveform are read
     *  from it. Refused while an upload runs (failed "VN_E_BUSY"). */
    Q_INVOKABLE void upload(const QString &location);
    /** Cancels the running upload: it ends Failed with "VN_E_CANCELLED". */
    Q_INVOKABLE void cancel();
    /** Sends the last upload again after it failed. */
    Q_INVOKABLE void retry();

Q_SIGNALS:
    void settingsChanged();
    void stateChanged();
    void progressChanged();
    /** The upload ended: the payload's JSON with the uploaded `asset_url`. */
    void uploaded(const QString &payloadJson);
    /** A call was refused or the upload failed: the status's name ("VN_E_NETWORK", "VN_E_CANCELLED") and the
     *  library's message (naming `HTTP nnn` where there is one). */
    void failed(const QString &status, const QString &message);

private:
    voicenote::uploader *ensure();
    void dispatchEvent(const voicenote::upload_event &event);
    template <class Value>
    void setSetting(Value &setting, const Value &value, const char *name);

    QString endpoint_;
    Mode mode_ = Multipart;
    QVariantMap headers_;
    QVariantMap query_;
    QString urlKey_;
    State state_ = Pending;
    qreal progress_ = 0;
    QString payloadJson_;
    std::shared_ptr<voicenote::uploader> uploader_;
    voicenote::subscription subscription_;  // after the uploader: ends first
};

}  // namespace voicenote_qml

#endif
