/* qml-host QML_FILE NOTE DEVICE CONFIGURATION [--system]: loads QML_FILE (a VoicePlayer from `import Voicenote`) with
 * the note to play and the ALSA device to play it on, and exits with what the QML says (Qt.exit). The module is found
 * at VOICENOTE_QML_IMPORT_PATH (from the CMake target voicenote::qml), or with --system on Qt's own import path only.
 * Then prints the import path it added and every voicenote library it loaded (one a line). 20 s at most. */
#include <QFile>
#include <QGuiApplication>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QTimer>
#include <QUrl>

#include <cstdio>
#include <memory>

int main(int argc, char **argv) {
    QGuiApplication app(argc, argv);
    const QStringList arguments = app.arguments();
    if (arguments.size() < 5) {
        std::fprintf(stderr, "usage: qml-host QML_FILE NOTE DEVICE CONFIGURATION [--system]\n");
        return 2;
    }
    const bool system = arguments.size() > 5 && arguments.at(5) == QStringLiteral("--system");
    QQmlEngine engine;
    if (!system)
        engine.addImportPath(QStringLiteral(VOICENOTE_QML_IMPORT_PATH));
    QObject::connect(&engine, &QQmlEngine::exit, &app, &QCoreApplication::exit);
    QQmlComponent component(&engine, QUrl::fromLocalFile(arguments.at(1)));
    if (!component.isReady()) {
        std::fprintf(stderr, "%s\n", qPrintable(component.errorString()));
        return 1;
    }
    const std::unique_ptr<QObject> root(component.createWithInitialProperties(
        {{QStringLiteral("note"), arguments.at(2)},
         {QStringLiteral("device"), arguments.at(3)},
         {QStringLiteral("deviceConfiguration"), arguments.at(4)}}));
    if (!root) {
        std::fprintf(stderr, "%s\n", qPrintable(component.errorString()));
        return 1;
    }
    QTimer::singleShot(20000, &app, [] {
        std::fprintf(stderr, "qml-host: no Qt.exit() within 20 s\n");
        QCoreApplication::exit(3);
    });
    const int status = app.exec();
    std::printf("import path: %s\n", system ? "(Qt's own)" : VOICENOTE_QML_IMPORT_PATH);
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (maps.open(QIODevice::ReadOnly)) {
        QStringList loaded;
        for (const QByteArray &line : maps.readAll().split('\n')) {
            const QString path = QString::fromLocal8Bit(line.mid(line.indexOf('/')));
            if (line.contains("libvoicenote") && !loaded.contains(path))
                loaded << path;
        }
        for (const QString &path : loaded)
            std::printf("%s\n", qPrintable(path));
    }
    return status;
}
