/* waveform_reader.hpp — `WaveformReader`: a note's waveform read by the library off the GUI thread.
 *
 *     WaveformReader { id: reader; location: message.waveform.length === 0 ? message.location : "" }
 *     Waveform { values: reader.values }
 *
 * Setting `location` (a path, a file:// or http(s) URL) starts a read on a pool thread (voicenote::waveform_source
 * over the location's source); its values, or its failure (`failed`), arrive on the GUI thread. A new location, ""
 * or the reader's destruction cancels the read in flight at once (voicenote::source::cancel: a URL's waiting read
 * ends within 100 ms, the download stops); a cancelled read delivers nothing. Nothing here blocks the GUI thread.
 */
#ifndef VOICENOTE_QML_WAVEFORM_READER_HPP
#define VOICENOTE_QML_WAVEFORM_READER_HPP

#include <QList>
#include <QObject>
#include <QString>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace voicenote_qml {

class WaveformReader : public QObject {
    Q_OBJECT
    QML_ELEMENT
    /** The note to read (a path, a file:// or http(s) URL); "" reads nothing. A change cancels the read in flight,
     *  forgets the values and reads the new note. */
    Q_PROPERTY(QString location READ location WRITE setLocation NOTIFY locationChanged)
    /** How many values to read, 1…1048576 (default 100, what voice messages carry); read at the next read. */
    Q_PROPERTY(int samples READ samples WRITE setSamples NOTIFY samplesChanged)
    /** Request headers for an http(s) location, name → value (strings), e.g. ({ "Authorization": "Bearer …" }); a
     *  change reads an http(s) location again with them (the read in flight cancelled). None by default. */
    Q_PROPERTY(QVariantMap headers READ headers WRITE setHeaders NOTIFY headersChanged)
    /** The note's waveform, 0…1 each; empty until read, and after a failure. */
    Q_PROPERTY(QList<qreal> values READ values NOTIFY valuesChanged)
    /** Whether a read is in flight. */
    Q_PROPERTY(bool reading READ reading NOTIFY readingChanged)

public:
    /** A reader with no location. */
    explicit WaveformReader(QObject *parent = nullptr);
    /** Cancels the read in flight: it delivers nothing. Returns at once. */
    ~WaveformReader() override;

    QString location() const { return location_; }
    void setLocation(const QString &location);
    int samples() const { return samples_; }
    void setSamples(int samples);
    QVariantMap headers() const { return headers_; }
    void setHeaders(const QVariantMap &headers);
    QList<qreal> values() const { return values_; }
    bool reading() const { return read_ != nullptr; }

    /** Reads the location again (after a failure): the read in flight, if any, is cancelled. */
    Q_INVOKABLE void reload();

Q_SIGNALS:
    void locationChanged();
    void samplesChanged();
    void headersChanged();
    void valuesChanged();
    void readingChanged();
    /** The read failed (or `samples` was refused): the status's name ("VN_E_FORMAT", "VN_E_NOT_FOUND",
     *  "VN_E_NETWORK", …) and the library's message. */
    void failed(const QString &status, const QString &message);

private:
    struct Read;
    void start();
    void cancel();
    void finish(const QList<qreal> &values, int status, const QString &message);

    QString location_;
    int samples_ = 100;
    QVariantMap headers_;
    QList<qreal> values_;
    std::shared_ptr<Read> read_;  // the read in flight, or null
};

}  // namespace voicenote_qml

#endif
