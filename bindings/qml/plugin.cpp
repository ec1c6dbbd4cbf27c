/* The module's plugin class (qt_add_qml_module's NO_GENERATE_PLUGIN_SOURCE, CLASS_NAME VoicenotePlugin): what Qt's
 * generated one does — keep the types' registration function linked — and, when an engine first imports Voicenote,
 * the controls' translation for the user's language (i18n/voicenote_qml_<lang>.ts, compiled into the plugin as
 * :/voicenote/i18n/voicenote_qml_<lang>.qm) installed on the application, so a QML application gets the controls
 * in its user's language without code of its own. initializeEngine is the hook: Qt calls it on the engine's thread
 * (also when the type loader thread loaded the plugin) before any of the module's types is made. */
#include <QCoreApplication>
#include <QLocale>
#include <QPointer>
#include <QTranslator>
#include <QtQml/qqmlextensionplugin.h>

extern void qml_register_types_Voicenote();
Q_GHS_KEEP_REFERENCE(qml_register_types_Voicenote)

namespace {

/// Installs the controls' translator for QLocale() (the system's locale and LANGUAGE, unless the application set a
/// default) once per application; none for a language without a catalogue (English, the source texts).
void installTranslator() {
    static QPointer<QTranslator> installed;
    QCoreApplication *application = QCoreApplication::instance();
    if (installed || !application)
        return;
    auto *translator = new QTranslator(application);  // removed from the application when it is destroyed
    if (translator->load(QLocale(), QStringLiteral("voicenote_qml"), QStringLiteral("_"),
                         QStringLiteral(":/voicenote/i18n"))) {
        QCoreApplication::installTranslator(translator);
        installed = translator;
    } else {
        delete translator;
    }
}

}  // namespace

/// The plugin of the QML module `Voicenote`: registers its types and installs the controls' translation.
class VoicenotePlugin : public QQmlEngineExtensionPlugin {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID QQmlEngineExtensionInterface_iid)

public:
    explicit VoicenotePlugin(QObject *parent = nullptr) : QQmlEngineExtensionPlugin(parent) {
        volatile auto registration = &qml_register_types_Voicenote;
        Q_UNUSED(registration)
    }

    void initializeEngine(QQmlEngine *, const char *) override { installTranslator(); }
};

#include "plugin.moc"
