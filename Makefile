# voicenote: thin wrappers over swift, cc, python and the scripts in scripts/.
# `make run` runs the main job; `make test` runs every test. Both install what they need first (`make deps`).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(PATH):/opt/swift/usr/bin

VERSION := $(shell scripts/version.sh)
MAJOR := $(shell scripts/version.sh major)
$(if $(VERSION),,$(error cannot read the version from include/voicenote.h (scripts/version.sh)))
PREFIX ?= /usr/local
BUILD ?= $(CURDIR)/build
# Scratch paths of the release and TSan builds (a second checkout or a parallel job can name its own).
RELEASE_SCRATCH ?= .build-release
TSAN_SCRATCH ?= .build-tsan
SO := libvoicenote.so.$(VERSION)
PYTHON ?= python3

# Every Debian package the build, tests, bench and tools use.
DEBIAN_PACKAGES := \
	pkg-config cmake ninja-build gcc g++ make binutils file time dpkg-dev libpng-dev libpulse-dev \
	libasound2-dev libogg-dev libopus-dev libopusenc-dev libopusfile-dev libsonic-dev libebur128-dev libspeexdsp-dev \
	libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us pocketsphinx \
	libcurl4-openssl-dev libjansson-dev libsqlite3-dev libavformat-dev libavcodec-dev libswresample-dev libavutil-dev \
	alsa-utils libasound2-plugins pulseaudio pulseaudio-utils \
	espeak-ng sox opus-tools ffmpeg lame gstreamer1.0-tools gstreamer1.0-plugins-good nginx-light curl doxygen python3-gi \
	gir1.2-gtk-4.0 python3-gi-cairo xvfb xauth python3-venv python3-wheel qt6-base-dev \
	libglib2.0-dev gobject-introspection libgirepository1.0-dev valac gjs libgtk-4-dev xdotool gi-docgen lintian gettext \
	dbus-daemon dbus-bin libsystemd-dev playerctl at-spi2-core gir1.2-atspi-2.0 \
	qt6-declarative-dev qt6-declarative-dev-tools qml6-module-qtqml qml6-module-qtqml-workerscript qml6-module-qtquick \
	qml6-module-qtquick-window qml6-module-qttest qml6-module-qtquick-controls qml6-module-qtquick-templates \
	qml6-module-qtquick-layouts qt6-l10n-tools
# Python packages the tests and bench use (from PyPI).
PYTHON_PACKAGES := pytest pytest-xdist=xdist wheel distributed tuspyserver uvicorn numpy pesq pystoi dbus-next=dbus_next

SWIFT_SO_FLAGS := -Xswiftc -static-stdlib -Xlinker --version-script=$(CURDIR)/voicenote.map \
	-Xlinker -soname=libvoicenote.so.$(MAJOR)


.PHONY: all deps resolve build so cli tsan-so build-tsan build-asan build-fuzz test test-self-contained test-swift test-abi test-c \
	test-cpp test-glib test-glib-leaks test-gtk qml test-qml test-qml-asan test-python test-install test-tsan test-asan test-fuzz install wheel deb run bench fuzz docs clean

all: build

deps:
	@scripts/deps.sh "$(PYTHON)" "$(DEBIAN_PACKAGES)" "$(PYTHON_PACKAGES)"

build: so cli

# The Swift package's dependencies resolved (Package.resolved written), so that builds in other scratch paths started
# at the same time (`make test` starts the instrumented ones beside the release build) only read it.
resolve:
	swift package --scratch-path $(RELEASE_SCRATCH) resolve

# The shipped library: static Swift runtime, SONAME, only vn_* exported.
so:
	swift build -c release --scratch-path $(RELEASE_SCRATCH) --product voicenote $(SWIFT_SO_FLAGS)
	mkdir -p $(BUILD)/lib
	install -m 0755 $(RELEASE_SCRATCH)/release/libvoicenote.so $(BUILD)/lib/$(SO)  # a new file: running users keep theirs
	ln -sf $(SO) $(BUILD)/lib/libvoicenote.so.$(MAJOR)
	ln -sf libvoicenote.so.$(MAJOR) $(BUILD)/lib/libvoicenote.so

cli:
	swift build -c release --scratch-path $(RELEASE_SCRATCH) --product voicenote-cli -Xswiftc -static-stdlib
	mkdir -p $(BUILD)/bin
	install -m 0755 $(RELEASE_SCRATCH)/release/voicenote-cli $(BUILD)/bin/voicenote

# The instrumented builds (ThreadSanitizer, AddressSanitizer, libFuzzer) compile each Swift module whole (-wmo) with
# its code generated on every core: from a clean tree a fifth less CPU than file by file (the AddressSanitizer build:
# 213 s against 260 here), and `make test` makes them from a clean tree on a machine its suites keep busy. The index
# stays on: the test runner's discovery reads it (single-threaded -wmo cannot write it).
SANITIZER_SWIFTC := -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc $(shell nproc)

# The library built with ThreadSanitizer, for the C and Python contract tests under TSan.
tsan-so:
	swift build --sanitize=thread --scratch-path $(TSAN_SCRATCH) --product voicenote $(SANITIZER_SWIFTC) \
		-Xlinker --version-script=$(CURDIR)/voicenote.map -Xlinker -soname=libvoicenote.so.$(MAJOR)
	mkdir -p $(BUILD)/tsan/lib
	install -m 0755 $(TSAN_SCRATCH)/debug/libvoicenote.so $(BUILD)/tsan/lib/$(SO)
	ln -sf $(SO) $(BUILD)/tsan/lib/libvoicenote.so.$(MAJOR)
	ln -sf libvoicenote.so.$(MAJOR) $(BUILD)/tsan/lib/libvoicenote.so

# Every suite (scripts/test.sh: the suites in turn, each timed, while the instrumented builds are made in the
# background). The Swift tests run under AddressSanitizer (all of them) and ThreadSanitizer (the threaded ones), not
# a third time plain: `make test-swift` runs them plain for a quick local check.
test: deps
	@VOICENOTE_BUILT=1 scripts/test.sh "$(MAKE)" "$(PYTHON)" $(BUILD)

# What the suites below need built first; scripts/test.sh builds it once (VOICENOTE_BUILT=1), not before each suite.
NEEDS_BUILD := $(if $(VOICENOTE_BUILT),,build)
# Extra pytest arguments (scripts/test.sh spreads the suites over processes: -n N --dist loadgroup).
VOICENOTE_PYTEST_ARGS ?=

# Nothing in the repository refers to documents outside it; every target imports only what it declares.
test-self-contained:
	scripts/check-self-contained.sh
	$(PYTHON) scripts/check-imports.py

# Swift tests keep their caches (media, resume positions) in a directory of their own, never the user's.
SWIFT_TEST_ENV = XDG_CACHE_HOME=$(CURDIR)/.build-test-cache

test-swift:
	swift build --build-tests
	rm -rf .build-test-cache
	$(SWIFT_TEST_ENV) swift test --skip-build

test-abi: $(NEEDS_BUILD)
	scripts/check-abi.sh $(BUILD)
	scripts/check-pocketsphinx.sh

test-c: $(NEEDS_BUILD)
	$(MAKE) -j$(shell nproc) -C bindings/c/tests run LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include

# The C++ layer's tests built with g++ (-std=c++17 -Wall -Wextra -pedantic -Werror) and run; test-tsan builds its
# thread tests again with the toolchain's clang++ (the same warnings as errors) and runs them under ThreadSanitizer.
test-cpp: $(NEEDS_BUILD)
	$(MAKE) -j$(shell nproc) -C bindings/cpp/tests run CXXS=g++ LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include

# voicenote-glib (bindings/glib, work in progress for issue #36): the library, its introspection data (gir, typelib,
# vapi) and its tests (g_test programs; VnPlayer from Python, gjs and Vala through the typelib/vapi), built with
# -Werror and run; g-ir-scanner printing anything fails it.
test-glib: $(NEEDS_BUILD)
	$(MAKE) -C bindings/glib test LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include OUT=$(BUILD)/glib

# voicenote-glib's leak check: the library and its g_test programs again with gcc's AddressSanitizer (over the
# uninstrumented build/lib), each run under LeakSanitizer with GLib's gc-friendly mode; any leak fails it.
test-glib-leaks: $(NEEDS_BUILD)
	$(MAKE) -C bindings/glib test-leaks LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include OUT=$(BUILD)/glib

# voicenote-gtk (bindings/gtk, work in progress for issue #36): GTK 4 widgets over voicenote-glib (built first, into
# the same place as test-glib's), their introspection data, and their tests, each in a GtkWindow on its own Xvfb
# server driven by real X input (xdotool), built with -Werror; g-ir-scanner printing anything fails it.
test-gtk: $(NEEDS_BUILD)
	$(MAKE) -C bindings/glib introspection LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include OUT=$(BUILD)/glib
	$(MAKE) -C bindings/gtk introspection test LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include GLIB_OUT=$(BUILD)/glib \
		OUT=$(BUILD)/gtk

# The QML module `Voicenote` (bindings/qml, work in progress for issue #37): cmake + ninja over build/lib and
# include/ into build/qml (the module in build/qml/Voicenote, its test runner in build/qml/tests), warnings as errors;
# the QML chat example (bindings/cpp/examples/qml) on it into build/qml-chat.
QML_CMAKE = cmake -S bindings/qml -G Ninja -DVOICENOTE_INCLUDE_DIR=$(CURDIR)/include -DVOICENOTE_LIBRARY_DIR=$(BUILD)/lib
qml: $(NEEDS_BUILD)
	$(QML_CMAKE) -B $(BUILD)/qml -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD)/qml
	cmake -S bindings/cpp/examples/qml -B $(BUILD)/qml-chat -G Ninja -DCMAKE_BUILD_TYPE=Release \
		-DVOICENOTE_QML_DIR=$(BUILD)/qml
	cmake --build $(BUILD)/qml-chat

# Its Qt Quick Test suites (bindings/qml/tests/tst_*.qml) against the product installed into build/qml-prefix (`make
# install`: the module from its lib/qt6/qml, the library from its lib), linted first, on an Xvfb server, where Mesa's OpenGL draws the waveform's
# geometry (Qt Quick's software renderer, with QT_QPA_PLATFORM=offscreen, does not), with a virtual microphone and
# speaker (ALSA file/null plugins), the controls also under the Fusion style and in German (LANGUAGE=de), after a check
# that the catalogues (bindings/qml/i18n) translate every qsTr() text; screenshots into build/qml/test-output; then the
# QML chat example driven through X input. A stage of `make test` (scripts/test.sh).
test-qml: qml
	rm -rf $(BUILD)/qml-prefix
	$(MAKE) -s install PREFIX=$(BUILD)/qml-prefix VOICENOTE_BUILT=1 > /dev/null
	VOICENOTE_QML_PREFIX=$(BUILD)/qml-prefix bindings/qml/tests/run.sh $(BUILD)/qml

# The module and its lifecycle test (bindings/qml/tests/lifecycle.cpp: every type made and destroyed from QML
# thousands of times, engines torn down while a note plays, flows destroyed in their own handlers, every signal on the
# GUI thread) built with gcc's AddressSanitizer into build/qml-asan (over the uninstrumented build/lib) and run
# offscreen under LeakSanitizer (run-lifecycle.sh). `make test` runs it in the background after the fuzz runs.
# Unoptimised (Debug): the optimised module is built and tested by `qml`/`test-qml`; here AddressSanitizer sees every
# access as written, and the build costs a third less CPU than RelWithDebInfo's (72 s against 104 here) for a run
# as fast.
QML_ASAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer
test-qml-asan: $(NEEDS_BUILD)
	$(QML_CMAKE) -B $(BUILD)/qml-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="$(QML_ASAN_FLAGS)" \
		-DCMAKE_EXE_LINKER_FLAGS="$(QML_ASAN_FLAGS)" -DCMAKE_MODULE_LINKER_FLAGS="$(QML_ASAN_FLAGS)"
	cmake --build $(BUILD)/qml-asan --target voicenote-qml-lifecycle
	bindings/qml/tests/run-lifecycle.sh $(BUILD)/qml-asan

test-python: $(NEEDS_BUILD)
	VOICENOTE_CLI=$(BUILD)/bin/voicenote VOICENOTE_LIBRARY=$(BUILD)/lib/libvoicenote.so $(PYTHON) -m pytest -q -p no:cacheprovider \
		$(VOICENOTE_PYTEST_ARGS) bindings/python/tests

# Synapse, a Matrix homeserver from PyPI, in a venv of its own for the Python tests' `synapse` fixture (one per user,
# shared by checkouts: $XDG_DATA_HOME/voicenote-tests/synapse-venv, or $VOICENOTE_SYNAPSE_VENV). `make deps` makes it,
# and the fixture itself when it is missing: this only makes it ahead of time.
.PHONY: synapse-venv
synapse-venv:
	$(PYTHON) bindings/python/tests/synapse.py --ensure-venv

test-install: $(NEEDS_BUILD)
	scripts/test-install.sh "$(PYTHON)"

# The ThreadSanitizer run is for the thread contract: the suites of single-threaded parsing and decoding (codecs,
# waveforms, JSON, byte sources, attachment payloads and message lists), the playback stages' signal tests
# (LevelingTests, SilenceSkipperTests, PlaybackPipelineTests, TimeStretcherTests, GainTests: one stage or pipeline on
# one thread; the player suites run them on the player's threads here) and voice cleanup's (VoiceCleanupTests: one
# cleanup on one thread) run under AddressSanitizer, not here, where instrumented decoding and DSP are slow; the
# waveform batch (a pool of threads) runs here too, and so do levelling in a player and cleanup in a recorder
# (RecorderVoiceCleanupTests). Transcripts: PocketSphinx's recognition of every format, of silence and damage (one
# decoder on one thread) runs under AddressSanitizer; their threads — cancel, close with a blocked backend, host
# backends, the cache across runs — run here. (Test ids are `Module.Suite/test()`.)
TSAN_SKIP := ^(VoiceNoteCodecTests\.|VoiceNoteWaveformTests\.(?!WaveformBatchTests)|VoiceNoteJSONTests\.|VoiceNoteAttachmentsTests\.(NextItemTests|PayloadTests|PayloadTranscriptTests|MatrixVoiceMessageTests)/|VoiceNoteSourcesTests\.|VoiceNotePlayerTests\.(LevelingTests|SilenceSkipperTests|PlaybackPipelineTests|TimeStretcherTests|GainTests)/|VoiceNoteRecorderTests\.VoiceCleanupTests/|VoiceNoteTranscriptTests\.PocketSphinxTests/|VoiceNoteTranscriptTests\.TranscriptionTests/(everyFormatIsHeard|aSilentNote|recordsParse|aMissingModel))

# The instrumented builds (scripts/test.sh makes them in the background): the library and the Swift tests' one
# program, not the CLI and fuzz targets, which their suites do not run instrumented.
build-tsan: tsan-so
	swift build --sanitize=thread --scratch-path $(TSAN_SCRATCH) --product VoiceNotePackageTests $(SANITIZER_SWIFTC)
build-asan:
	swift build --sanitize=address --scratch-path .build-asan --product VoiceNotePackageTests $(SANITIZER_SWIFTC)
build-fuzz:
	VOICENOTE_SWIFTC_FLAGS="$(SANITIZER_SWIFTC)" scripts/fuzz.sh --build-only

test-tsan: $(NEEDS_BUILD) $(if $(VOICENOTE_BUILT),,build-tsan)
	rm -rf .build-test-cache
	$(SWIFT_TEST_ENV) TSAN_OPTIONS=suppressions=$(CURDIR)/scripts/tsan.supp swift test --sanitize=thread \
		--scratch-path $(TSAN_SCRATCH) --skip-build --skip '$(TSAN_SKIP)'
	scripts/test-tsan.sh $(BUILD)/tsan/lib "$(PYTHON)"

# The memory bounds of hostile input are measured on the release CLI (VOICENOTE_CLI), not an instrumented one.
test-asan: $(NEEDS_BUILD) $(if $(VOICENOTE_BUILT),,build-asan)
	rm -rf .build-test-cache
	$(SWIFT_TEST_ENV) VOICENOTE_CLI=$(BUILD)/bin/voicenote LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp swift test \
		--sanitize=address --scratch-path .build-asan --skip-build

# libvoicenote (library, headers, pkg-config and CMake packages, CLI), then voicenote-glib and voicenote-gtk (library,
# headers, gir, typelib, vapi, pkg-config), relocatable (scripts/install.sh).
install: $(NEEDS_BUILD)
	scripts/install.sh "$(PREFIX)" $(BUILD) $(VERSION) $(MAJOR)

# The Python package as a platform wheel carrying the stripped library, in $(WHEELDIR).
WHEELDIR ?= $(BUILD)/wheel
wheel: so
	scripts/wheel.sh $(BUILD) "$(WHEELDIR)" "$(PYTHON)"

# Debian packages libvoicenote$(MAJOR), libvoicenote-dev and voicenote-tools, and voicenote-glib's and voicenote-gtk's
# library, gir1.2 and -dev packages, in $(DEBDIR) (scripts/deb.sh).
DEBDIR ?= $(BUILD)/deb
deb: $(NEEDS_BUILD)
	scripts/deb.sh $(BUILD) $(VERSION) $(MAJOR) "$(DEBDIR)"

run: deps build
	scripts/run-main-job.sh $(BUILD)

bench: deps build
	$(PYTHON) bench/run.py --build $(BUILD)

test-fuzz: $(if $(VOICENOTE_BUILT),,build-fuzz)
	scripts/fuzz.sh --built --runs 8000

fuzz:
	VOICENOTE_SWIFTC_FLAGS="$(SANITIZER_SWIFTC)" scripts/fuzz.sh $${FUZZ_SECONDS:-300}

# The C and C++ API references (doxygen, build/docs), then voicenote-glib's and voicenote-gtk's (gi-docgen,
# build/glib/doc/voicenote-glib-1 and build/gtk/doc/voicenote-gtk-1), every warning an error. The bindings' part
# compiles and scans their C over build/lib (seconds) into the directories test-glib and test-gtk build in too, so
# those find it done.
docs: $(NEEDS_BUILD)
	VN_VERSION=$(VERSION) doxygen docs/Doxyfile
	VN_VERSION=$(VERSION) doxygen docs/Doxyfile.cpp
	$(MAKE) -C bindings/glib introspection reference LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include OUT=$(BUILD)/glib
	$(MAKE) -C bindings/gtk reference LIBDIR=$(BUILD)/lib INCDIR=$(CURDIR)/include GLIB_OUT=$(BUILD)/glib \
		OUT=$(BUILD)/gtk

clean:
	rm -rf $(BUILD) .build .build-release .build-tsan .build-asan .build-fuzz .build-test-cache
