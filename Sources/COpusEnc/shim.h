#include <opusenc.h>
