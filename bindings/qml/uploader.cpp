#include "uploader.hpp"

#include "event_bridge.hpp"
#include "failure.hpp"
#include "properties.hpp"

#include <string>
#include <utility>
#include <vector>

namespace voicenote_qml {

namespace {


}  // namespace

Uploader::Uploader(QObject *parent) : QObject(parent) {}

Uploader::~Uploader() = default;

template <class Value>
void Uploader::setSetting(Value &setting, const Value &value, const char *name) {
    updateSetting(this, bool(uploader_), "uploader", name, setting, value, &Uploader::settingsChanged);
}

void Uploader::setEndpoint(const QString &endpoint) { setSetting(endpoint_, endpoint, "endpoint"); }
void Uploader::setMode(Mode mode) { setSetting(mode_, mode, "mode"); }
void Uploader::setHeaders(const QVariantMap &headers) { setSetting(headers_, headers, "headers"); }
void Uploader::setQuery(const QVariantMap &query) { setSetting(query_, query, "query"); }
void Uploader::setUrlKey(const QString &key) { setSetting(urlKey_, key, "urlKey"); }

voicenote::uploader *Uploader::ensure() {
    if (uploader_) return uploader_.get();
    attempt(this, [&] {
        voicenote::upload_options options;
        options.mode = static_cast<voicenote::upload_mode>(mode_);
        voicenote::http_options http;
        http.headers = toPairs(headers_);
        options.http = http;
        options.query = toPairs(query_);
        if (!urlKey_.isEmpty()) options.url_key = urlKey_.toStdString();
        // The uploader's constructor takes its endpoint first: made here, as makeBridged() does for the others.
        auto bridge = EventBridge::forCurrentThread();
        options.loop = &bridge->loop();
        auto held = std::make_shared<Bridged<voicenote::uploader>>(bridge, endpoint_.toStdString(), options);
        std::shared_ptr<voicenote::uploader> made(held, &held->object);
        subscription_ = made->subscribe([this](const voicenote::upload_event &event) { dispatchEvent(event); });
        uploader_ = std::move(made);
    });
    return uploader_.get();
}

void Uploader::dispatchEvent(const voicenote::upload_event &event) {
    updateProperty(this, progress_, event.progress, &Uploader::progressChanged);
    if (event.state == voicenote::upload_state::uploaded) payloadJson_ = QString::fromStdString(event.payload_json);
    bool changed = updateProperty(this, state_, static_cast<State>(event.state), &Uploader::stateChanged);
    if (!changed) return;  // a progress step
    if (event.state == voicenote::upload_state::uploaded) Q_EMIT uploaded(payloadJson_);
    if (event.state == voicenote::upload_state::failed)
        Q_EMIT failed(statusName(event.status), QString::fromStdString(event.message));
}

void Uploader::upload(const QString &location) {
    if (voicenote::uploader *uploader = ensure()) attempt(this, [&] { uploader->upload_file(location.toStdString()); });
}

void Uploader::cancel() {
    if (voicenote::uploader *uploader = ensure()) attempt(this, [&] { uploader->cancel(); });
}

void Uploader::retry() {
    if (voicenote::uploader *uploader = ensure()) attempt(this, [&] { uploader->retry(); });
}

}  // namespace voicenote_qml
