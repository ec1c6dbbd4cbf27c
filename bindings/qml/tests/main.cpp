/* The Qt Quick Test runner of the Voicenote module: every tst_*.qml in this directory, with the build tree's
 * module on the import path, a TestRig as the context property `rig` and an UploadServer as `uploadServer`. Run
 * under a real X server (xvfb-run): Qt Quick's software renderer (QT_QPA_PLATFORM=offscreen) does not draw the
 * waveform's geometry nodes. */
#include "test_rig.hpp"
#include "upload_server.hpp"

#include <QQmlContext>
#include <QQmlEngine>
#include <QtQuickTest>

class Setup : public QObject {
    Q_OBJECT

public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine *engine) {
        engine->addImportPath(QStringLiteral(VOICENOTE_QML_IMPORT_DIR));
        engine->rootContext()->setContextProperty(QStringLiteral("rig"), new TestRig(engine));
        engine->rootContext()->setContextProperty(QStringLiteral("uploadServer"), new UploadServer(engine));
    }
};

#define QUICK_TEST_SOURCE_DIR VOICENOTE_QML_TESTS_DIR
QUICK_TEST_MAIN_WITH_SETUP(voicenote_qml, Setup)

#include "main.moc"
