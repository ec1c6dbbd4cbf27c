/* The Qt Quick Test runner of the Voicenote module: every tst_*.qml in this directory. The module is imported from
 * $VOICENOTE_QML_IMPORT_PATH when set (an installed prefix's lib/qt6/qml: what `make test-qml` runs the suites
 * against), else from the build tree. The suites' own module VoicenoteTest (compiled into this runner) gives them the
 * singletons TestRig (devices, notes, checks) and UploadServer (HTTP on 127.0.0.1). Run under a real X server
 * (xvfb-run): Qt Quick's software renderer (QT_QPA_PLATFORM=offscreen) does not draw the waveform's geometry nodes. */
#include "test_rig.hpp"

#include <QQmlEngine>
#include <QtQuickTest>

class Setup : public QObject {
    Q_OBJECT

public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine *engine) {
        engine->addImportPath(TestRig::moduleImportPath());
    }
};

#define QUICK_TEST_SOURCE_DIR VOICENOTE_QML_TESTS_DIR
QUICK_TEST_MAIN_WITH_SETUP(voicenote_qml, Setup)

#include "main.moc"
