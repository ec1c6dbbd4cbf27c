/* test_rig.hpp — what every QML test reads as the singleton `TestRig` (import VoicenoteTest): a temporary directory, a virtual microphone and speaker (ALSA's
 * `file` plugin over a `null` slave, unpaced, defined by configuration text the types take as
 * `deviceConfiguration`, as bindings/glib/tests/capture-rig.h does), short notes (one rising, one corrupt), and checks
 * the QML side cannot make itself (the thread a handler runs on, files on disk, an image's pixels).
 */
#ifndef VOICENOTE_QML_TESTS_TEST_RIG_HPP
#define VOICENOTE_QML_TESTS_TEST_RIG_HPP

#include <QObject>
#include <QtQml/qqmlregistration.h>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QVariant>

class TestRig : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    /** The test's temporary directory (removed with the rig). */
    Q_PROPERTY(QString directory READ directory CONSTANT)
    /** ALSA configuration text defining `vn_mic`: a microphone reading `toneSeconds` of a 440 Hz tone. */
    Q_PROPERTY(QString microphone READ microphone CONSTANT)
    /** ALSA configuration text defining `vn_spk`: a speaker writing what it plays to `speakerOutput`. */
    Q_PROPERTY(QString speaker READ speaker CONSTANT)
    /** The file the speaker writes. */
    Q_PROPERTY(QString speakerOutput READ speakerOutput CONSTANT)
    /** An Ogg Opus note of `noteSeconds` of tone, made by the library's converter from a WAV file. */
    Q_PROPERTY(QString note READ note CONSTANT)
    /** A second note, as `note`, of another length. */
    Q_PROPERTY(QString otherNote READ otherNote CONSTANT)
    /** A note as long as `note` whose tone grows from silence to full loudness: its waveform rises. */
    Q_PROPERTY(QString crescendoNote READ crescendoNote CONSTANT)
    /** 8 KiB of random bytes (the same every run) named corrupt.ogg: no decoder takes them. */
    Q_PROPERTY(QString corruptNote READ corruptNote CONSTANT)
    /** How long `note` is. */
    Q_PROPERTY(double noteSeconds READ noteSeconds CONSTANT)
    /** Where the module Voicenote is imported from (moduleImportPath()). */
    Q_PROPERTY(QString importPath READ importPath CONSTANT)
    /** Whether that is an installed prefix's (VOICENOTE_QML_IMPORT_PATH set), not the build tree's. */
    Q_PROPERTY(bool installed READ installed CONSTANT)

public:
    /** Makes the directory, the tone, the notes and the device texts; a failure is fatal (qFatal). */
    explicit TestRig(QObject *parent = nullptr);

    QString directory() const { return directory_.path(); }
    QString microphone() const { return microphone_; }
    QString speaker() const { return speaker_; }
    QString speakerOutput() const { return directory_.filePath(QStringLiteral("speaker.raw")); }
    QString note() const { return note_; }
    QString otherNote() const { return otherNote_; }
    QString crescendoNote() const { return crescendoNote_; }
    QString corruptNote() const { return corruptNote_; }
    double noteSeconds() const { return 1.5; }
    QString importPath() const { return moduleImportPath(); }
    bool installed() const { return !qEnvironmentVariableIsEmpty("VOICENOTE_QML_IMPORT_PATH"); }

    /** The import path holding the module Voicenote the tests run against: $VOICENOTE_QML_IMPORT_PATH (an
     *  installed prefix's lib/qt6/qml) when set, else the build tree's (VOICENOTE_QML_IMPORT_DIR). */
    static QString moduleImportPath();
    /** The canonical paths of the files mapped into this process whose names begin with `libvoicenote` (the
     *  library, the QML plugin), from /proc/self/maps: a list of strings (a `var`, which QML reads as an array). */
    Q_INVOKABLE QVariant loadedLibraries() const;
    /** `path` with every symbolic link and `..` resolved; empty when it does not exist. */
    Q_INVOKABLE QString canonicalPath(const QString &path) const;

    /** Whether the caller runs on the application's (GUI) thread. */
    Q_INVOKABLE bool onGuiThread() const;
    /** The size of the file at `path` in bytes, -1 when there is none. */
    Q_INVOKABLE qint64 fileSize(const QString &path) const;
    /** Where a screenshot `name` goes: `name`.png in the test output directory ($VOICENOTE_QML_TEST_OUTPUT, else
     *  the temporary directory), for ItemGrabResult.saveToFile() (QML cannot read a grab's QImage itself). */
    Q_INVOKABLE QString outputPath(const QString &name) const;
    /** How many distinct colours the image file at `path` has, and how many of its pixels are of `color` (within
     *  40 per channel): a blank grab has one colour. Returns {colours, matching, width, height}; width 0 when the
     *  file cannot be read. */
    Q_INVOKABLE QVariant colours(const QString &path, const QString &color) const;

    /** What assistive technology reads of `item` through Qt's accessibility interface (QAccessibleInterface, as
     *  the AT-SPI bridge does): {role (QAccessible::Role's name), name, description, value (a slider's, else
     *  undefined)}; empty when the item has no interface. */
    Q_INVOKABLE QVariant accessible(QObject *item) const;

private:
    QTemporaryDir directory_;
    QString microphone_;
    QString speaker_;
    QString note_;
    QString otherNote_;
    QString crescendoNote_;
    QString corruptNote_;
};

#endif
