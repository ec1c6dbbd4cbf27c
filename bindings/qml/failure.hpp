/* failure.hpp — private: a refused call turned into the object's `failed(status, message)` signal.
 *
 * Every Voicenote type has the signal `failed(QString status, QString message)`: the status's symbolic name
 * ("VN_E_MISUSE", "VN_E_NOT_FOUND", …) and the library's detail. A call QML makes never throws into the engine: a
 * refusal (voicenote::error) is emitted there instead, and so is a failure the library reports in an event.
 */
#ifndef VOICENOTE_QML_FAILURE_HPP
#define VOICENOTE_QML_FAILURE_HPP

#include <voicenote.hpp>

#include <QString>

#include <new>
#include <string>

namespace voicenote_qml {

/** The symbolic name of a `VN_E_*` status, e.g. "VN_E_FORMAT". */
inline QString statusName(int status) { return QString::fromUtf8(vn_status_name(status)); }

/** What a voicenote::error says: the library's detail, else its summary. */
inline std::string errorMessage(const voicenote::error &e) {
    return e.detail().empty() ? std::string(e.what()) : e.detail();
}

/** Runs `call`; a voicenote::error it throws (or running out of memory) becomes `target`'s failed signal. Returns
 *  whether it succeeded. */
template <class Target, class Call>
bool attempt(Target *target, Call &&call) {
    try {
        call();
        return true;
    } catch (const voicenote::error &e) {
        Q_EMIT target->failed(statusName(e.status()), QString::fromStdString(errorMessage(e)));
    } catch (const std::bad_alloc &) {
        Q_EMIT target->failed(statusName(VN_E_NOMEM), QStringLiteral("out of memory"));
    }
    return false;
}

}  // namespace voicenote_qml

#endif
