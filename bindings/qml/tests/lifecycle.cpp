/* voicenote-qml-lifecycle LONG_NOTE [ROUNDS]: the module's types made and destroyed from QML over and over, for
 * AddressSanitizer and LeakSanitizer (`make test-qml-asan` builds the module and this program with -fsanitize=address
 * and runs it offscreen, bindings/qml/tests/run-lifecycle.sh):
 *
 *   types    every type (VoicePlayer, QueuePlayer, VoiceRecorder, RecordingFlow over its own recorder and player,
 *            Uploader, Waveform, WaveformReader) made from one component and destroyed, ROUNDS times (default
 *            2000); every tenth round the player and the queue start playing and the recorder recording, and
 *            everything is destroyed before their events are handled (the reader mostly mid-read); every hundredth round in an engine of its own, torn down after them
 *   engines  an engine torn down while a note plays (LONG_NOTE, minutes long, so it still plays), or, every other
 *            time, while a flow records (which pauses the note), ROUNDS / 40 times
 *   flows    a flow destroyed inside its own signal handler, ROUNDS / 20 times in turn: from QML (destroy()) in
 *            `viewChanged` when its recording starts, in `attachmentReady` after lock, stop and send, in
 *            `attachmentReady` or `tooShort` after a release as soon as it records; and from C++ (deleteLater()) in
 *            `viewChanged`, the flow's recorder deleted right there
 *
 * Every signal of every object made is watched: each must arrive on the GUI thread, and each part must see some.
 * Waits are bounded (waitFor); a failure prints what failed and exits 1. The virtual microphone and speakers are
 * ALSA's file and null plugins (TestRig).
 */
#include "test_rig.hpp"

#include <voicenote.h>

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QMetaMethod>
#include <QPointer>
#include <QQmlApplicationEngine>
#include <QQmlComponent>
#include <QQmlContext>
#include <QQmlEngine>
#include <QThread>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <utility>

namespace {

[[noreturn]] void fail(const char *what) {
    std::fprintf(stderr, "voicenote-qml-lifecycle: FAIL: %s\n", what);
    std::exit(1);
}

/** Runs Qt's event loop until `condition` holds (false after `milliseconds`): waiting on events, not sleeping. */
bool waitFor(const std::function<bool()> &condition, int milliseconds = 10000) {
    QDeadlineTimer deadline(milliseconds);
    while (!condition()) {
        if (deadline.hasExpired()) return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    return true;
}

/** Handles the deferred deletions (QML's destroy(), deleteLater()) posted so far. */
void deleteDeferred() { QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); }

/** Counts the signals of every object it watches, and those emitted off the GUI thread. */
class ThreadWatch : public QObject {
    Q_OBJECT

public:
    int events = 0;
    int offGuiThread = 0;

    /** Connects every signal of `root` and of each object under it (QML parents what it declares) to `seen`. */
    void watch(QObject *root) {
        const int seenIndex = metaObject()->indexOfSlot("seen()");
        QList<QObject *> objects = root->findChildren<QObject *>();
        objects.prepend(root);
        for (QObject *object : objects) {
            const QMetaObject *meta = object->metaObject();
            for (int i = 0; i < meta->methodCount(); ++i) {
                if (meta->method(i).methodType() == QMetaMethod::Signal)
                    QMetaObject::connect(object, i, this, seenIndex, Qt::DirectConnection);
            }
        }
    }

public Q_SLOTS:
    void seen() {
        ++events;
        if (QThread::currentThread() != thread()) ++offGuiThread;
    }
};

/** Deletes a flow from C++ inside its own viewChanged once it records, and its recorder there and then. */
class DeleteWhenRecording : public QObject {
    Q_OBJECT

public:
    int deleted = 0;

public Q_SLOTS:
    void viewChanged() {
        QObject *flow = sender();
        if (flow->property("state").toInt() != VN_FLOW_RECORDING) return;
        disconnect(flow, nullptr, this, nullptr);
        delete flow->property("recorder").value<QObject *>();
        flow->deleteLater();
        ++deleted;
    }
};

/** Checks what `watch` saw in a part: some events, none off the GUI thread. */
void checkThreads(const ThreadWatch &watch, const char *part, const QElapsedTimer &timer) {
    std::printf("%s: %d events, %d off the GUI thread, %lld ms\n", part, watch.events, watch.offGuiThread,
                static_cast<long long>(timer.elapsed()));
    if (watch.events == 0) fail("a part saw no event");
    if (watch.offGuiThread != 0) fail("an event arrived off the GUI thread");
}

/** What every part uses: the test rig (devices, notes) and a note minutes long. */
struct Fixture {
    explicit Fixture(QString note) : longNote(std::move(note)) {}
    TestRig rig;
    QString longNote;
};

/** An engine as the tests make one: the module of the build tree on its import path, `rig` and `longNote` in its
 *  context. */
template <class Engine>
std::unique_ptr<Engine> makeEngine(Fixture &fixture) {
    auto engine = std::make_unique<Engine>();
    engine->addImportPath(QStringLiteral(VOICENOTE_QML_IMPORT_DIR));
    engine->rootContext()->setContextProperty(QStringLiteral("rig"), &fixture.rig);
    engine->rootContext()->setContextProperty(QStringLiteral("longNote"), fixture.longNote);
    return engine;
}

QObject *create(QQmlComponent &component) {
    QObject *object = component.create();
    if (!object) {
        std::fprintf(stderr, "%s\n", qPrintable(component.errorString()));
        fail("the component did not load");
    }
    return object;
}

const char *const kEveryType = R"(
import QtQuick
import Voicenote
Item {
    function start() { player.load(rig.note, true); queue.playFrom(0); recorder.begin() }
    VoicePlayer { id: player; device: "vn_spk"; deviceConfiguration: rig.speaker }
    QueuePlayer { id: queue; device: "vn_spk"; deviceConfiguration: rig.speaker; locations: [rig.note, rig.otherNote] }
    VoiceRecorder {
        id: recorder; directory: rig.directory + "/types"; device: "vn_mic"; deviceConfiguration: rig.microphone
    }
    RecordingFlow {
        recorder: VoiceRecorder {
            directory: rig.directory + "/types"; device: "vn_mic"; deviceConfiguration: rig.microphone
        }
        player: VoicePlayer { device: "vn_spk"; deviceConfiguration: rig.speaker }
    }
    Uploader { endpoint: "http://127.0.0.1:9/upload" }
    Waveform { width: 100; height: 20; values: [0.1, 0.5, 1.0, 0.25]; progress: 0.5 }
    WaveformReader { location: rig.note }
}
)";

void everyType(Fixture &fixture, int rounds) {
    QElapsedTimer timer;
    timer.start();
    ThreadWatch watch;
    auto shared = makeEngine<QQmlEngine>(fixture);
    QQmlComponent sharedComponent(shared.get());
    sharedComponent.setData(kEveryType, QUrl());
    for (int round = 0; round < rounds; ++round) {
        std::unique_ptr<QQmlEngine> own;
        std::unique_ptr<QQmlComponent> ownComponent;
        QQmlComponent *component = &sharedComponent;
        if (round % 100 == 99) {
            own = makeEngine<QQmlEngine>(fixture);
            ownComponent = std::make_unique<QQmlComponent>(own.get());
            ownComponent->setData(kEveryType, QUrl());
            component = ownComponent.get();
        }
        std::unique_ptr<QObject> root(create(*component));
        watch.watch(root.get());
        if (round % 10 == 0) QMetaObject::invokeMethod(root.get(), "start");
        QCoreApplication::processEvents();
        root.reset();
        ownComponent.reset();
        own.reset();
        deleteDeferred();
    }
    checkThreads(watch, "types", timer);
}

const char *const kPlaying = R"(
import QtQuick
import Voicenote
Item {
    property alias playerState: player.state
    property alias flowState: flow.state
    function record() { flow.press(0, 0) }
    VoicePlayer {
        id: player
        device: "vn_silent"
        deviceConfiguration: 'pcm.vn_silent { type file slave.pcm { type null } file "/dev/null" format raw }'
        Component.onCompleted: load(longNote, true)
    }
    RecordingFlow {
        id: flow
        minimumPress: 0.05
        recorder: VoiceRecorder {
            directory: rig.directory + "/engines"; device: "vn_mic"; deviceConfiguration: rig.microphone
        }
        player: VoicePlayer { device: "vn_spk"; deviceConfiguration: rig.speaker }
    }
}
)";

void enginesTornDown(Fixture &fixture, int rounds) {
    QElapsedTimer timer;
    timer.start();
    ThreadWatch watch;
    for (int round = 0; round < rounds; ++round) {
        auto engine = makeEngine<QQmlApplicationEngine>(fixture);
        engine->loadData(kPlaying);
        if (engine->rootObjects().size() != 1) fail("the playing component did not load");
        QObject *root = engine->rootObjects().first();
        watch.watch(root);
        if (!waitFor([root] { return root->property("playerState").toInt() == VN_PLAYER_PLAYING; }))
            fail("the note did not play within 10 s");
        if (round % 2 == 1) {  // a take pauses what plays: every other round, the engine goes while it records
            QMetaObject::invokeMethod(root, "record");
            if (!waitFor([root] { return root->property("flowState").toInt() == VN_FLOW_RECORDING; }))
                fail("the take did not record within 10 s");
        } else if (root->property("playerState").toInt() != VN_PLAYER_PLAYING) {
            fail("the note was no longer playing");
        }
        engine.reset();  // the note still playing, or the take recording
        deleteDeferred();
    }
    checkThreads(watch, "engines", timer);
}

const char *const kFlows = R"(
import QtQuick
import Voicenote
Item {
    id: root
    property int destroyedInViewChanged: 0
    property int destroyedInAttachmentReady: 0
    property int destroyedInTooShort: 0
    function start(kind) { return flowComponent.createObject(root, {kind: kind}) }
    Component {
        id: flowComponent
        RecordingFlow {
            property int kind
            property bool gone: false
            function end(handler) {
                if (gone) return
                gone = true
                root["destroyedIn" + handler]++
                destroy()
            }
            minimumPress: 0.05
            confirmationRequired: false
            recorder: VoiceRecorder {
                directory: rig.directory + "/flows"; device: "vn_mic"; deviceConfiguration: rig.microphone
            }
            player: VoicePlayer { device: "vn_spk"; deviceConfiguration: rig.speaker }
            Component.onCompleted: press(0, 0)
            onViewChanged: {
                if (kind === 0 && state === RecordingFlow.Recording) end("ViewChanged")
                if (kind === 1 && state === RecordingFlow.Recording && duration >= 0.3) { lock(); stop() }
                if (kind === 1 && state === RecordingFlow.Preview) send()
                if (kind === 2 && state === RecordingFlow.Recording) release()
            }
            onAttachmentReady: end("AttachmentReady")
            onTooShort: end("TooShort")
        }
    }
}
)";

void flowsDestroyedInHandlers(Fixture &fixture, int rounds) {
    QElapsedTimer timer;
    timer.start();
    ThreadWatch watch;
    DeleteWhenRecording deleter;
    auto engine = makeEngine<QQmlEngine>(fixture);
    QQmlComponent component(engine.get());
    component.setData(kFlows, QUrl());
    std::unique_ptr<QObject> root(create(component));
    for (int round = 0; round < rounds; ++round) {
        const int kind = round % 4;
        QVariant made;
        QMetaObject::invokeMethod(root.get(), "start", Q_RETURN_ARG(QVariant, made), Q_ARG(QVariant, kind));
        QPointer<QObject> flow = made.value<QObject *>();
        if (!flow) fail("no flow made");
        watch.watch(flow);
        if (kind == 3)
            QObject::connect(flow, SIGNAL(viewChanged()), &deleter, SLOT(viewChanged()), Qt::DirectConnection);
        if (!waitFor([&flow] { return flow.isNull(); })) fail("a flow was not destroyed in its handler within 10 s");
    }
    const int inViewChanged = root->property("destroyedInViewChanged").toInt();
    const int inAttachmentReady = root->property("destroyedInAttachmentReady").toInt();
    const int inTooShort = root->property("destroyedInTooShort").toInt();
    std::printf("flows: destroyed by QML in viewChanged %d, attachmentReady %d, tooShort %d; from C++ %d\n",
                inViewChanged, inAttachmentReady, inTooShort, deleter.deleted);
    if (inViewChanged + inAttachmentReady + inTooShort + deleter.deleted != rounds)
        fail("a flow was destroyed elsewhere than in its handler");
    // (tooShort comes when a released take is shorter than the flow's minimum, which the unpaced microphone seldom
    // gives: not required.)
    if (inViewChanged == 0 || inAttachmentReady == 0 || deleter.deleted == 0) fail("a handler destroyed no flow");
    root.reset();
    checkThreads(watch, "flows", timer);
}

}  // namespace

int main(int argc, char **argv) {
    QGuiApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: voicenote-qml-lifecycle LONG_NOTE [ROUNDS]\n");
        return 2;
    }
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 2000;
    if (rounds < 80 || rounds > 1000000) {  // every part at least four times
        std::fprintf(stderr, "ROUNDS must be 80…1000000\n");
        return 2;
    }
    Fixture fixture(QString::fromLocal8Bit(argv[1]));
    everyType(fixture, rounds);
    enginesTornDown(fixture, rounds / 40);
    flowsDestroyedInHandlers(fixture, rounds / 20);
    std::printf("voicenote-qml-lifecycle: passed\n");
    return 0;
}

#include "lifecycle.moc"
