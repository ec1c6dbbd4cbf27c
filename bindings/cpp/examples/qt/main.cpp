/* voicenote-qt-chat — a Qt 6 chat window with voice messages (see chat_window.hpp).
 *
 *   voicenote-qt-chat [--messages conversation.json] [--user-id me] [--recordings DIR]
 *                     [--mic NAME [--mic-config TEXT]] [--speaker NAME [--speaker-config TEXT]]
 *
 * --mic/--mic-config and --speaker/--speaker-config name other ALSA devices (configuration text, as the library
 * takes it: a virtual microphone or a file speaker in tests).
 */
#include "chat_window.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QStandardPaths>

#include <cstdio>

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("voicenote-qt-chat");
    QCommandLineParser parser;
    parser.setApplicationDescription("A Qt 6 chat window with voice messages (voicenote).");
    parser.addHelpOption();
    QCommandLineOption messages("messages", "A JSON file of messages in Stream's shape, oldest first.", "file");
    QCommandLineOption userId("user-id", "Who you are in the conversation.", "id", "me");
    QCommandLineOption recordings(
        "recordings", "Where takes are written.", "directory",
        QDir(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation)).filePath("voicenote-chat"));
    QCommandLineOption mic("mic", "The ALSA capture device.", "name");
    QCommandLineOption micConfig("mic-config", "ALSA configuration text defining --mic.", "text");
    QCommandLineOption speaker("speaker", "The ALSA playback device.", "name");
    QCommandLineOption speakerConfig("speaker-config", "ALSA configuration text defining --speaker.", "text");
    parser.addOptions({messages, userId, recordings, mic, micConfig, speaker, speakerConfig});
    parser.process(app);

    voicenote_qt::ChatOptions options;
    options.messages = parser.value(messages);
    options.userId = parser.value(userId);
    options.recordings = parser.value(recordings);
    auto optional = [&](const QCommandLineOption &option) -> std::optional<std::string> {
        if (!parser.isSet(option)) return std::nullopt;
        return parser.value(option).toStdString();
    };
    options.mic = optional(mic);
    options.micConfig = optional(micConfig);
    options.speaker = optional(speaker);
    options.speakerConfig = optional(speakerConfig);
    try {
        voicenote_qt::ChatWindow window(options);
        window.show();
        return app.exec();
    } catch (const voicenote::error &e) {
        std::fprintf(stderr, "voicenote-qt-chat: %s\n", e.what());
        return 1;
    }
}
