#include "queue_player.hpp"

#include "failure.hpp"
#include "properties.hpp"

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace voicenote_qml {

/**
 * The list as the data source sees it, and its cursor: the index of the item the decoder is on (set by playFrom(),
 * moved on by the data source itself when it is asked about the item after the cursor, and by the GUI thread as
 * items change), so a location listed twice is followed from where the queue is, not from its first occurrence.
 */
struct QueuePlayer::Shared {
    std::mutex mutex;
    std::vector<std::string> locations;
    voicenote::http_options http;  // the player's headers, for the http(s) items
    int cursor = -1;

    /** The index of the item after `location` (which may be asked about more than once): after the cursor when the
     *  cursor is on it, after the cursor's next when the decoder moved there, else after its first occurrence. */
    int indexAfter(std::string_view location) {
        auto at = [&](int index) {
            return index >= 0 && static_cast<std::size_t>(index) < locations.size() && locations[index] == location;
        };
        if (at(cursor)) return cursor + 1;
        if (at(cursor + 1)) return ++cursor + 1;
        for (std::size_t i = 0; i < locations.size(); ++i)
            if (locations[i] == location) return (cursor = static_cast<int>(i)) + 1;
        return -1;
    }
};

QueuePlayer::QueuePlayer(QObject *parent) : VoicePlayer(parent), shared_(std::make_shared<Shared>()) {
    connect(this, &VoicePlayer::headersChanged, this, [this] {
        std::lock_guard<std::mutex> lock(shared_->mutex);
        shared_->http = httpOptions(headers());
    });
}

QueuePlayer::~QueuePlayer() = default;

void QueuePlayer::setLocations(const QStringList &locations) {
    if (locations == locations_) return;
    locations_ = locations;
    {
        std::lock_guard<std::mutex> lock(shared_->mutex);
        shared_->locations.clear();
        for (const QString &location : locations) shared_->locations.push_back(location.toStdString());
    }
    Q_EMIT locationsChanged();
}

void QueuePlayer::setSkipListened(bool skip) {
    if (skip == skipListened_) return;
    skipListened_ = skip;
    if (auto player = shared()) attempt(this, [&] { player->set_skip_listened(skip); });
    Q_EMIT skipListenedChanged();
}

bool QueuePlayer::isLastItem(int index) {
    if (index < 0 || index >= count()) return false;
    for (int i = index + 1; skipListened_ && i < count(); ++i)
        if (!isListened(locations_[i])) return false;
    return skipListened_ || index == count() - 1;
}

void QueuePlayer::prepare(voicenote::player &player) {
    player.set_skip_listened(skipListened_);
    // Runs on the decoder thread: reads only the shared copy (kept alive by the lambda, which the library owns).
    std::shared_ptr<Shared> shared = shared_;
    player.set_data_source([shared](std::string_view current, std::string_view, voicenote::queue_answer &answer) {
        std::lock_guard<std::mutex> lock(shared->mutex);
        int next = shared->indexAfter(current);
        if (next < 0 || static_cast<std::size_t>(next) >= shared->locations.size()) return;
        const std::string &location = shared->locations[next];
        if (isHttpUrl(QString::fromStdString(location)))
            answer.set_url(location, shared->http);
        else
            answer.set_location(location);
    });
}

void QueuePlayer::setCurrentIndex(int index) {
    {
        std::lock_guard<std::mutex> lock(shared_->mutex);
        shared_->cursor = index;
    }
    if (index == currentIndex_) return;
    currentIndex_ = index;
    Q_EMIT currentIndexChanged();
}

void QueuePlayer::handleEvent(const voicenote::player_event &event) {
    if (event.type == voicenote::player_event_type::item_changed) {
        int index = -1;
        if (loading_ >= 0 && QString::fromStdString(event.location) == locations_.value(loading_)) {
            index = std::exchange(loading_, -1);  // the item playFrom() loaded, not the one after the current
        } else if (locations_.value(currentIndex_ + 1) == QString::fromStdString(event.location)) {
            index = currentIndex_ + 1;  // the usual case: the item after the current one
        } else {
            index = static_cast<int>(locations_.indexOf(QString::fromStdString(event.location)));
        }
        setCurrentIndex(index);
        Q_EMIT itemChanged(index);
    } else if (event.type == voicenote::player_event_type::finished) {
        if (isLastItem(currentIndex_) && QString::fromStdString(event.location) == locations_.value(currentIndex_))
            Q_EMIT ended();
    }
}

void QueuePlayer::playFrom(int index) {
    if (index < 0 || index >= count()) {
        Q_EMIT failed(statusName(VN_E_INVALID_ARG),
                      QStringLiteral("index %1 is outside the queue's %2 items").arg(index).arg(count()));
        return;
    }
    auto player = shared();
    if (!player) return;
    setCurrentIndex(index);
    loading_ = index;
    if (!attempt(this, [&] { loadInto(*player, locations_[index], true); })) loading_ = -1;
}

void QueuePlayer::next() {
    if (auto player = shared()) attempt(this, [&] { player->next(); });
}

void QueuePlayer::previous() {
    playFrom(currentIndex_ > 0 ? currentIndex_ - 1 : 0);
}

}  // namespace voicenote_qml
