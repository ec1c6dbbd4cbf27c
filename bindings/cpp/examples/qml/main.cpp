/* voicenote-qml-chat: a conversation of voice notes (a JSON file in Stream's shape) and a composer, in QML on the
 * module `Voicenote` (Main.qml). The module is found on the import path VOICENOTE_QML_DIR (build/qml), given at build
 * time; QML_IMPORT_PATH adds others. */
#include "report.hpp"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQmlApplicationEngine>
#include <QStandardPaths>
#include <QUrl>
#include <QVariantList>

#include <cstdio>

namespace {

/** Exits with a message on stderr (status 2: bad input). */
[[noreturn]] void fail(const QString &message) {
    std::fprintf(stderr, "voicenote-qml-chat: %s\n", qPrintable(message));
    std::exit(2);
}

/** The voice notes of a conversation file ({"messages": [...]}, oldest first): for each message's voiceRecording
 *  attachment {sender, text, location (a path for file:// URLs), duration, waveform}. */
QVariantList readConversation(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) fail(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError || !document.object().value(QStringLiteral("messages")).isArray())
        fail(QStringLiteral("%1 is not a conversation ({\"messages\": [...]}): %2").arg(path, error.errorString()));
    QVariantList notes;
    for (const QJsonValue &message : document.object().value(QStringLiteral("messages")).toArray()) {
        for (const QJsonValue &attachment : message[QStringLiteral("attachments")].toArray()) {
            if (attachment[QStringLiteral("type")].toString() != QStringLiteral("voiceRecording")) continue;
            const QUrl url(attachment[QStringLiteral("asset_url")].toString());
            const double duration = attachment[QStringLiteral("duration")].toDouble();
            if (!url.isValid() || url.isEmpty() || !(duration >= 0 && duration <= 86400))
                fail(QStringLiteral("%1: a voiceRecording needs an asset_url and a duration of 0…86400 s").arg(path));
            notes.append(QVariantMap{
                {QStringLiteral("sender"), message[QStringLiteral("user")][QStringLiteral("id")].toString()},
                {QStringLiteral("text"), message[QStringLiteral("text")].toString()},
                {QStringLiteral("location"), url.isLocalFile() ? url.toLocalFile() : url.toString()},
                {QStringLiteral("duration"), duration},
                {QStringLiteral("waveform"), attachment[QStringLiteral("waveform_data")].toArray().toVariantList()}});
        }
    }
    return notes;
}

}  // namespace

int main(int argc, char *argv[]) {
    QGuiApplication app(argc, argv);
    app.setApplicationName(QStringLiteral("voicenote-qml-chat"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Voice notes in a QML chat window (libvoicenote's example)."));
    parser.addHelpOption();
    const QCommandLineOption messages(QStringLiteral("messages"), QStringLiteral("The conversation (JSON)."),
                                      QStringLiteral("FILE"));
    const QCommandLineOption userId(QStringLiteral("user-id"), QStringLiteral("Who sends (default me)."),
                                    QStringLiteral("ID"), QStringLiteral("me"));
    const QCommandLineOption mic(QStringLiteral("mic"), QStringLiteral("The ALSA capture device."),
                                 QStringLiteral("PCM"));
    const QCommandLineOption micConfig(QStringLiteral("mic-config"),
                                       QStringLiteral("ALSA configuration text defining --mic."), QStringLiteral("TEXT"));
    const QCommandLineOption speaker(QStringLiteral("speaker"), QStringLiteral("The ALSA playback device."),
                                     QStringLiteral("PCM"));
    const QCommandLineOption speakerConfig(QStringLiteral("speaker-config"),
                                           QStringLiteral("ALSA configuration text defining --speaker."),
                                           QStringLiteral("TEXT"));
    const QCommandLineOption recordings(QStringLiteral("recordings"),
                                        QStringLiteral("Where takes are written (default ~/.cache/voicenote-chat)."),
                                        QStringLiteral("DIR"));
    const QCommandLineOption report(QStringLiteral("report"),
                                    QStringLiteral("Write each event as a JSON line to FILE (for tests)."),
                                    QStringLiteral("FILE"));
    parser.addOptions({messages, userId, mic, micConfig, speaker, speakerConfig, recordings, report});
    parser.process(app);
    if (!parser.isSet(messages)) fail(QStringLiteral("--messages FILE is required"));

    QString directory = parser.value(recordings);
    if (directory.isEmpty())
        directory = QDir(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation))
                        .filePath(QStringLiteral("voicenote-chat"));
    if (!QDir().mkpath(directory)) fail(QStringLiteral("cannot make %1").arg(directory));

    auto *events = new Report(parser.value(report), &app);
    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral(VOICENOTE_QML_DIR));
    engine.setInitialProperties({
        {QStringLiteral("notes"), readConversation(parser.value(messages))},
        {QStringLiteral("userId"), parser.value(userId)},
        {QStringLiteral("micDevice"), parser.value(mic)},
        {QStringLiteral("micConfig"), parser.value(micConfig)},
        {QStringLiteral("speakerDevice"), parser.value(speaker)},
        {QStringLiteral("speakerConfig"), parser.value(speakerConfig)},
        {QStringLiteral("recordings"), directory},
        {QStringLiteral("report"), QVariant::fromValue(static_cast<QObject *>(events))}});
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, &app, [] { QCoreApplication::exit(1); },
                     Qt::QueuedConnection);
    engine.load(QUrl(QStringLiteral("qrc:/VoicenoteChat/Main.qml")));  // Qt 6.4: no loadFromModule()
    return app.exec();
}
