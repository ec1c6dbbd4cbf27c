# `make docs`, second part: the C++ layer's reference from include/voicenote.hpp and include/voicenote/*.hpp.
# Warnings are errors: every public symbol has a doc comment (in prose: parameters and results are described in
# it, not tagged one by one as the C header's are). The implementation namespace voicenote::detail is left out.
@INCLUDE               = docs/Doxyfile
PROJECT_BRIEF          = "The voice-message engine for Linux chat clients: the C++ layer"
OUTPUT_DIRECTORY       = build/docs/cpp
INPUT                  = include/voicenote.h include/voicenote.hpp include/voicenote
FILE_PATTERNS          = *.h *.hpp
OPTIMIZE_OUTPUT_FOR_C  = NO
WARN_NO_PARAMDOC       = NO
EXCLUDE_SYMBOLS        = voicenote::detail std
