/* queue_player.hpp — `QueuePlayer`: a VoicePlayer over a list of locations, played one after another.
 *
 *     QueuePlayer { locations: ["/notes/a.ogg", "/notes/b.ogg"]; onEnded: ... }
 *     queue.playFrom(0)   // a.ogg, then b.ogg by itself
 *
 * The library's data source (on the player's decoder thread) answers the location after the current one from a
 * copy of `locations` kept under a mutex; `currentIndex` follows on the GUI thread as the items change.
 */
#ifndef VOICENOTE_QML_QUEUE_PLAYER_HPP
#define VOICENOTE_QML_QUEUE_PLAYER_HPP

#include "voice_player.hpp"

#include <QStringList>

#include <memory>

namespace voicenote_qml {

class QueuePlayer : public voicenote_qml::VoicePlayer {  // qualified: qmltyperegistrar looks the base up by this name
    Q_OBJECT
    QML_ELEMENT
    /** The locations in the order they play; a change applies from the current item on. */
    Q_PROPERTY(QStringList locations READ locations WRITE setLocations NOTIFY locationsChanged)
    /** The index in `locations` of the item loaded (-1 before any). */
    Q_PROPERTY(int currentIndex READ currentIndex NOTIFY currentIndexChanged)
    /** How many locations there are. */
    Q_PROPERTY(int count READ count NOTIFY locationsChanged)
    /** "Play unplayed": the listened items (isListened()) are passed over as the queue moves on; `ended` comes after
     *  the last unlistened one. playFrom() plays the item it names. False by default. */
    Q_PROPERTY(bool skipListened READ skipListened WRITE setSkipListened NOTIFY skipListenedChanged)

public:
    /** An empty queue. */
    explicit QueuePlayer(QObject *parent = nullptr);
    ~QueuePlayer() override;

    QStringList locations() const { return locations_; }
    void setLocations(const QStringList &locations);
    int currentIndex() const { return currentIndex_; }
    int count() const { return static_cast<int>(locations_.size()); }
    bool skipListened() const { return skipListened_; }
    void setSkipListened(bool skip);

    /** Loads the item at `index` and plays it, then the ones after it. An index outside the list: failed
     *  "VN_E_INVALID_ARG". */
    Q_INVOKABLE void playFrom(int index);
    /** Skips to the next item now (the last one: the player stops). */
    Q_INVOKABLE void next();
    /** Plays the item before the current one, then the ones after it (at the first item: the first). */
    Q_INVOKABLE void previous();

Q_SIGNALS:
    void locationsChanged();
    void currentIndexChanged();
    void skipListenedChanged();
    /** The queue moved by itself or by next() to the item at `index`. */
    void itemChanged(int index);
    /** The last item played to its end. */
    void ended();

protected:
    void prepare(voicenote::player &player) override;
    void handleEvent(const voicenote::player_event &event) override;

private:
    struct Shared;  // what the data source reads on the decoder thread
    void setCurrentIndex(int index);
    /** Whether the item at `index` is the queue's last: the list's last, or, passing over listened items, one after
     *  which every item is listened. */
    bool isLastItem(int index);

    QStringList locations_;
    int currentIndex_ = -1;
    bool skipListened_ = false;
    int loading_ = -1;  // the index playFrom() loaded, until its item_changed came
    std::shared_ptr<Shared> shared_;
};

}  // namespace voicenote_qml

#endif
