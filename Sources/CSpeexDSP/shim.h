/* speexdsp's preprocessor header only: CSpeexDSPLoader opens libspeexdsp with dlopen on first use (a recorder with
 * voice cleanup on), so nothing links it. */
#include <speex/speex_preprocess.h>
