#include "waveform_reader.hpp"

#include "failure.hpp"
#include "properties.hpp"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>
#include <QUrl>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace voicenote_qml {

/** One read: made and delivered on the GUI thread, run on a pool thread; shared by both until both are done. */
struct WaveformReader::Read {
    std::string location;  // a path or an http(s) URL
    bool isUrl = false;
    voicenote::http_options http;  // a URL's headers
    std::size_t samples = 0;
    QPointer<WaveformReader> owner;  // GUI thread only; null once cancelled: the result is dropped

    std::mutex mutex;  // guards the two below
    bool cancelled = false;
    const voicenote::source *source = nullptr;  // while the pool thread reads it

    /** On the pool thread: the waveform, then its delivery posted to the GUI thread, then the source released
     *  (stopping a URL's download) — so a delivery is queued before the server sees the connection close. */
    void run(const std::shared_ptr<Read> &self) {
        std::vector<float> values;
        int status = VN_OK;
        std::string message;
        std::optional<voicenote::source> made;
        try {
            made.emplace(isUrl ? voicenote::source::url(location, http) : voicenote::source::file(location));
            {
                std::lock_guard<std::mutex> lock(mutex);
                if (cancelled) throw voicenote::error(VN_E_CANCELLED, "the read was cancelled");
                source = &*made;
            }
            values = voicenote::waveform_source(*made, samples);
        } catch (const voicenote::error &e) {
            status = e.status();
            message = errorMessage(e);
        } catch (const std::bad_alloc &) {
            status = VN_E_NOMEM;
            message = "out of memory";
        }
        {
            std::lock_guard<std::mutex> lock(mutex);
            source = nullptr;
        }
        QCoreApplication *application = QCoreApplication::instance();
        if (!application) return;  // the application is going: no one to deliver to
        QMetaObject::invokeMethod(
            application,
            [self, list = toRealList(values), status, text = QString::fromStdString(message)] {
                if (WaveformReader *reader = self->owner.data()) reader->finish(list, status, text);
            },
            Qt::QueuedConnection);
    }

    /** Any thread: the read ends (VN_E_CANCELLED) at once, or never starts. */
    void cancel() {
        std::lock_guard<std::mutex> lock(mutex);
        cancelled = true;
        if (source) {
            try {
                source->cancel();
            } catch (const voicenote::error &) {  // only for a moved-from source: not this one
            }
        }
    }
};

WaveformReader::WaveformReader(QObject *parent) : QObject(parent) {}

WaveformReader::~WaveformReader() { cancel(); }

void WaveformReader::setLocation(const QString &location) {
    if (location == location_) return;
    location_ = location;
    Q_EMIT locationChanged();
    start();
}

void WaveformReader::setSamples(int samples) {
    if (samples < 1 || std::size_t(samples) > voicenote::waveform_max_samples) {
        Q_EMIT failed(statusName(VN_E_INVALID_ARG),
                      QStringLiteral("samples must be 1…%1").arg(voicenote::waveform_max_samples));
        return;
    }
    updateProperty(this, samples_, samples, &WaveformReader::samplesChanged);
}

void WaveformReader::setHeaders(const QVariantMap &headers) {
    // A read made before them (QML sets bound properties in any order) is made again with them.
    if (updateProperty(this, headers_, headers, &WaveformReader::headersChanged) && isHttpUrl(location_)) start();
}

void WaveformReader::reload() { start(); }

void WaveformReader::start() {
    const bool wasReading = reading();
    cancel();
    updateProperty(this, values_, QList<qreal>(), &WaveformReader::valuesChanged);
    if (!location_.isEmpty()) {
        auto read = std::make_shared<Read>();
        const bool isUrl = isHttpUrl(location_);
        const bool isFileUrl = location_.startsWith(QLatin1String("file:"), Qt::CaseInsensitive);
        read->location = (isFileUrl ? QUrl(location_).toLocalFile() : location_).toStdString();
        read->isUrl = isUrl;
        if (isUrl) read->http = httpOptions(headers_);
        read->samples = std::size_t(samples_);
        read->owner = this;
        read_ = read;
        QThreadPool::globalInstance()->start([read] { read->run(read); });
    }
    if (reading() != wasReading) Q_EMIT readingChanged();
}

void WaveformReader::cancel() {
    if (!read_) return;
    read_->owner = nullptr;
    read_->cancel();
    read_.reset();
}

void WaveformReader::finish(const QList<qreal> &values, int status, const QString &message) {
    // The values while still reading (the busy state ends after them); a handler may start another read meanwhile.
    const std::shared_ptr<Read> finished = read_;
    if (status == VN_OK) updateProperty(this, values_, values, &WaveformReader::valuesChanged);
    if (read_ != finished) return;
    read_.reset();
    Q_EMIT readingChanged();
    if (status != VN_OK && !read_) Q_EMIT failed(statusName(status), message);
}

}  // namespace voicenote_qml
