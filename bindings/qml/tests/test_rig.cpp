#include "test_rig.hpp"

#include <voicenote.hpp>

#include <QAccessible>
#include <QColor>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMetaEnum>
#include <QRandomGenerator>
#include <QSet>
#include <QThread>

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kToneRate = 48000;
constexpr double kToneSeconds = 3.0;

/** `seconds` of a 440 Hz triangle tone, mono S16 at 48 kHz (what capture-rig.h writes). */
std::vector<std::int16_t> tone(double seconds) {
    std::vector<std::int16_t> samples(static_cast<std::size_t>(seconds * kToneRate));
    for (std::size_t i = 0; i < samples.size(); ++i) {
        auto phase = static_cast<unsigned>((static_cast<std::uint64_t>(i) * 440 * 65536 / kToneRate) & 0xffff);
        int value = phase < 32768 ? int(phase) - 16384 : 49152 - int(phase);
        samples[i] = static_cast<std::int16_t>(value / 2);
    }
    return samples;
}

void writeFile(const QString &path, const QByteArray &bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

QByteArray raw(const std::vector<std::int16_t> &samples) {
    return QByteArray(reinterpret_cast<const char *>(samples.data()), qsizetype(samples.size() * 2));
}

/** A canonical 44-byte WAV header before `samples` (mono S16 at 48 kHz). */
QByteArray wav(const std::vector<std::int16_t> &samples) {
    QByteArray data = raw(samples);
    auto le32 = [](QByteArray &out, std::uint32_t v) {
        for (int i = 0; i < 4; ++i) out.append(char((v >> (8 * i)) & 0xff));
    };
    auto le16 = [](QByteArray &out, std::uint16_t v) {
        out.append(char(v & 0xff));
        out.append(char(v >> 8));
    };
    QByteArray out("RIFF");
    le32(out, std::uint32_t(36 + data.size()));
    out.append("WAVEfmt ");
    le32(out, 16);
    le16(out, 1);                 // PCM
    le16(out, 1);                 // mono
    le32(out, kToneRate);
    le32(out, kToneRate * 2);     // bytes per second
    le16(out, 2);                 // block align
    le16(out, 16);                // bits
    out.append("data");
    le32(out, std::uint32_t(data.size()));
    return out + data;
}

/** `samples` growing louder from silence to their own loudness at the end (a crescendo). */
std::vector<std::int16_t> crescendo(std::vector<std::int16_t> samples) {
    for (std::size_t i = 0; i < samples.size(); ++i)
        samples[i] = static_cast<std::int16_t>(double(samples[i]) * double(i) / double(samples.size()));
    return samples;
}

QString makeNote(const QDir &directory, const QString &name, const std::vector<std::int16_t> &samples) {
    QString source = directory.filePath(name + QStringLiteral(".wav"));
    QString note = directory.filePath(name + QStringLiteral(".ogg"));
    writeFile(source, wav(samples));
    try {
        voicenote::convert_file(source.toStdString(), note.toStdString());
    } catch (const voicenote::error &e) {
        qFatal("cannot make the note %s: %s", qPrintable(note), e.what());
    }
    return note;
}

}  // namespace

TestRig::TestRig(QObject *parent) : QObject(parent), directory_(QDir::temp().filePath("voicenote-qml-XXXXXX")) {
    if (!directory_.isValid()) qFatal("cannot make a temporary directory");
    // As when a screen reader listens (there is no AT-SPI bus here): Qt Quick's items answer accessibility queries
    // (accessible()) with their Accessible properties, and controls set up theirs as they are made.
    QAccessible::setActive(true);
    QDir dir(directory_.path());
    QString toneFile = dir.filePath(QStringLiteral("tone.raw"));
    writeFile(toneFile, raw(tone(kToneSeconds)));
    microphone_ = QStringLiteral("pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%1\" "
                                 "format raw }")
                      .arg(toneFile);
    speaker_ = QStringLiteral("pcm.vn_spk { type file slave.pcm { type null } file \"%1\" format raw perm 0644 }")
                   .arg(speakerOutput());
    note_ = makeNote(dir, QStringLiteral("note"), tone(noteSeconds()));
    otherNote_ = makeNote(dir, QStringLiteral("other"), tone(1.0));
    crescendoNote_ = makeNote(dir, QStringLiteral("crescendo"), crescendo(tone(noteSeconds())));
    // Bytes no decoder takes, the same every run (a fixed seed), under a name that says Ogg.
    QByteArray noise(8192, Qt::Uninitialized);
    QRandomGenerator generator(37);
    for (char &byte : noise) byte = char(generator.bounded(256));
    corruptNote_ = dir.filePath(QStringLiteral("corrupt.ogg"));
    writeFile(corruptNote_, noise);
}

QString TestRig::moduleImportPath() {
    const QString installed = qEnvironmentVariable("VOICENOTE_QML_IMPORT_PATH");
    return installed.isEmpty() ? QStringLiteral(VOICENOTE_QML_IMPORT_DIR) : installed;
}

QVariant TestRig::loadedLibraries() const {
    QFile maps(QStringLiteral("/proc/self/maps"));
    QStringList loaded;
    if (!maps.open(QIODevice::ReadOnly)) return loaded;  // none: the tests reading it fail
    for (const QByteArray &line : maps.readAll().split('\n')) {
        const int slash = line.indexOf('/');
        if (slash < 0) continue;
        const QString path = QString::fromLocal8Bit(line.mid(slash));
        const QString canonical = QFileInfo(path).canonicalFilePath();
        if (QFileInfo(path).fileName().startsWith(QStringLiteral("libvoicenote")) && !loaded.contains(canonical))
            loaded << canonical;
    }
    return loaded;
}

QString TestRig::canonicalPath(const QString &path) const { return QFileInfo(path).canonicalFilePath(); }

bool TestRig::onGuiThread() const { return QThread::currentThread() == QCoreApplication::instance()->thread(); }

qint64 TestRig::fileSize(const QString &path) const {
    QFileInfo info(path);
    return info.exists() ? info.size() : -1;
}

QVariant TestRig::colours(const QString &path, const QString &color) const {
    QImage picture = QImage(path).convertToFormat(QImage::Format_ARGB32);
    QColor wanted(color);
    QSet<QRgb> distinct;
    int matching = 0;
    for (int y = 0; y < picture.height(); ++y) {
        for (int x = 0; x < picture.width(); ++x) {
            QRgb pixel = picture.pixel(x, y);
            distinct.insert(pixel);
            if (std::abs(qRed(pixel) - wanted.red()) <= 40 && std::abs(qGreen(pixel) - wanted.green()) <= 40 &&
                std::abs(qBlue(pixel) - wanted.blue()) <= 40)
                ++matching;
        }
    }
    return QVariantMap{{QStringLiteral("colours"), int(distinct.size())}, {QStringLiteral("matching"), matching},
            {QStringLiteral("width"), picture.width()}, {QStringLiteral("height"), picture.height()}};
}

QString TestRig::outputPath(const QString &name) const {
    QString directory = qEnvironmentVariable("VOICENOTE_QML_TEST_OUTPUT", directory_.path());
    QDir().mkpath(directory);
    return QDir(directory).filePath(name + QStringLiteral(".png"));
}

QVariant TestRig::accessible(QObject *item) const {
    QAccessibleInterface *face = item ? QAccessible::queryAccessibleInterface(item) : nullptr;
    if (!face) return QVariantMap();
    QVariantMap read{
        {QStringLiteral("role"), QString::fromLatin1(QMetaEnum::fromType<QAccessible::Role>().valueToKey(face->role()))},
        {QStringLiteral("name"), face->text(QAccessible::Name)},
        {QStringLiteral("description"), face->text(QAccessible::Description)}};
    if (QAccessibleValueInterface *value = face->valueInterface())
        read.insert(QStringLiteral("value"), value->currentValue());
    return read;
}
