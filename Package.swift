// swift-tools-version:6.3
// voicenote: the voice-message engine for Linux chat clients.
// Modules depend downward only: VoiceNoteABI -> features -> Codec/Audio -> VoiceNoteCore -> C shims.
// Link flags for the shipped .so (SONAME, version script, static runtime) are passed by the Makefile,
// so this manifest stays free of unsafe flags and usable as a dependency.
import PackageDescription

/// A system library reached through pkg-config, with the Debian package that provides it.
func systemLibrary(_ name: String, pkgConfig: String?, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "VoiceNote",
    products: [
        .library(name: "voicenote", type: .dynamic, targets: ["VoiceNoteABI"]),
        .executable(name: "voicenote-cli", targets: ["voicenote-cli"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("COgg", pkgConfig: "ogg", apt: "libogg-dev"),
        systemLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        systemLibrary("COpusEnc", pkgConfig: "libopusenc", apt: "libopusenc-dev"),
        systemLibrary("COpusFile", pkgConfig: "opusfile", apt: "libopusfile-dev"),
        systemLibrary("CSonic", pkgConfig: nil, apt: "libsonic-dev"),
        // EBU R128 loudness (libebur128, the reference implementation): measured in the waveform's decode pass.
        systemLibrary("CEBUR128", pkgConfig: "libebur128", apt: "libebur128-dev"),
        // speexdsp's headers only: CSpeexDSPLoader opens it on first use (voice cleanup on record).
        systemLibrary("CSpeexDSP", pkgConfig: nil, apt: "libspeexdsp-dev"),
        // libcurl's headers only, like FFmpeg's: CCurlLoader opens libcurl on first use.
        systemLibrary("CCurl", pkgConfig: nil, apt: "libcurl4-openssl-dev"),
        systemLibrary("CJansson", pkgConfig: "jansson", apt: "libjansson-dev"),
        // FFmpeg's headers only: no pkg-config (SwiftPM would link its libraries) and no `link` in the modulemap.
        // CFFmpegLoader defines the functions and opens the libraries on first use. Debian's headers are on the
        // compiler's default path (/usr/include/<multiarch>).
        systemLibrary("CFFmpeg", pkgConfig: nil, apt: "libavformat-dev"),
        // PNG output of `voicenote waveform --format png`; the CLI only, never the .so.
        systemLibrary("CPNG", pkgConfig: "libpng", apt: "libpng-dev"),
        // The public header, imported by VoiceNoteABI so `@c @implementation` is checked against it.
        .systemLibrary(name: "CVoiceNote", path: "include"),
        // C for what Swift cannot express in the core (thread-local text, eventfd, thread names): no dependencies.
        .target(name: "CShims"),
        // The real-time C: the sample ring, the ALSA capture loop (and the playback loop), ALSA's error capture.
        .target(name: "CRealtime", dependencies: ["CALSA", "CShims"]),
        // The variadic requests of libopus and libopusenc as plain functions.
        .target(name: "COpusShims", dependencies: ["COpus", "COpusEnc"]),
        .target(name: "CFFmpegLoader", dependencies: ["CFFmpeg", "CShims"]),
        .target(name: "CCurlLoader", dependencies: ["CCurl", "CShims"]),
        .target(name: "CSpeexDSPLoader", dependencies: ["CSpeexDSP", "CShims"]),
        // The session bus through sd-bus, opened on first use (MPRIS, other players); <systemd/sd-bus.h> is on the
        // default path (Debian: libsystemd-dev).
        .target(name: "CDesktopBus", dependencies: ["CShims"]),
        // PocketSphinx opened on first use (transcripts); sphinxbase's headers are on the default path.
        .target(name: "CPocketSphinxLoader", dependencies: ["CShims"]),
        // SQLite's header only; CSQLiteLoader opens libsqlite3 on first use (the outbox's database).
        systemLibrary("CSQLite", pkgConfig: nil, apt: "libsqlite3-dev"),
        .target(name: "CSQLiteLoader", dependencies: ["CSQLite", "CShims"]),
        .target(name: "VoiceNoteCore", dependencies: ["CShims", "CVoiceNote"]),
        // Byte sources (file, memory, host callbacks; HTTP in VoiceNoteNetwork) under one read contract; decoders
        // never know where bytes come from.
        .target(name: "VoiceNoteSources", dependencies: ["VoiceNoteCore"]),
        // The one libcurl caller: HTTP(S) byte sources, the media cache and uploads' POSTs on one network thread.
        .target(name: "VoiceNoteNetwork", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "CCurlLoader"]),
        // The one JSON layer (jansson): payloads and message lists read and written with key order, exact integers
        // and shortest reals.
        .target(name: "VoiceNoteJSON", dependencies: ["VoiceNoteCore", "CJansson"]),
        .target(name: "VoiceNoteCodec", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "COpusShims", "COgg", "COpus", "COpusEnc", "COpusFile", "CFFmpeg", "CFFmpegLoader"]),
        .target(name: "VoiceNoteAudio", dependencies: ["VoiceNoteCore", "CRealtime", "CALSA"]),
        .target(name: "VoiceNoteWaveform", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "VoiceNoteCodec", "CEBUR128"]),
        .target(name: "VoiceNoteRecorder", dependencies: ["VoiceNoteCore", "VoiceNoteAudio", "VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteWaveform", "VoiceNoteAttachments", "CSpeexDSPLoader"]),
        // The player's decoder-thread stages: levelling (gain and true-peak limiter), silence skipping, libsonic time
    // stretching, software gain.
        .target(name: "VoiceNotePlayer", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "VoiceNoteNetwork", "VoiceNoteCodec", "VoiceNoteAudio", "VoiceNoteJSON", "VoiceNoteWaveform", "CSonic"]),
        // Transcripts: a note's words with times, by PocketSphinx or a host's recogniser.
        .target(name: "VoiceNoteTranscript", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteNetwork", "VoiceNoteJSON", "CPocketSphinxLoader"]),
        // Attachments and messages: Stream's voiceRecording payload, the next-item provider, uploads.
        .target(name: "VoiceNoteAttachments", dependencies: ["VoiceNoteCore", "VoiceNoteJSON", "VoiceNoteSources", "VoiceNoteNetwork", "VoiceNoteCodec", "VoiceNoteWaveform", "VoiceNoteTranscript"]),
        // The queue player over a channel's messages: connects the player and the next-item provider (neither
        // imports the other).
        // The desktop: a player's MPRIS 2 presence on the session bus, other players paused while recording.
        .target(name: "VoiceNoteDesktop", dependencies: ["VoiceNoteCore", "VoiceNotePlayer", "VoiceNoteRecorder", "CDesktopBus", "CShims"]),
        .target(name: "VoiceNoteQueue", dependencies: ["VoiceNoteCore", "VoiceNoteNetwork", "VoiceNotePlayer", "VoiceNoteAttachments", "VoiceNoteWaveform"]),
        // The durable outbox: every send recorded in SQLite, resumed and retried across crashes, handed off once.
        .target(name: "VoiceNoteOutbox", dependencies: ["VoiceNoteCore", "VoiceNoteJSON", "VoiceNoteAttachments", "CSQLiteLoader"]),
        // The recording flow (hold to record, slide to cancel, lock, preview, send) over a recorder and a player.
        .target(name: "VoiceNoteFlow", dependencies: ["VoiceNoteCore", "VoiceNoteCodec", "VoiceNoteRecorder", "VoiceNotePlayer", "VoiceNoteJSON", "VoiceNoteAttachments", "VoiceNoteOutbox"]),
        .target(
            name: "VoiceNoteABI",
            dependencies: [
                "VoiceNoteCore", "VoiceNoteAudio", "VoiceNoteSources", "VoiceNoteNetwork", "VoiceNoteCodec", "VoiceNoteWaveform",
                "VoiceNoteRecorder", "VoiceNotePlayer", "VoiceNoteJSON", "VoiceNoteAttachments", "VoiceNoteQueue", "VoiceNoteFlow", "VoiceNoteOutbox", "VoiceNoteTranscript", "VoiceNoteDesktop", "CVoiceNote", "CShims",
            ]
        ),
        .executableTarget(
            name: "voicenote-cli",
            dependencies: [
                "VoiceNoteCore", "VoiceNoteAudio", "VoiceNoteSources", "VoiceNoteNetwork", "VoiceNoteCodec", "VoiceNoteWaveform", "VoiceNoteRecorder", "VoiceNotePlayer", "VoiceNoteJSON", "VoiceNoteAttachments", "VoiceNoteFlow", "VoiceNoteOutbox", "VoiceNoteTranscript", "VoiceNoteDesktop", "CPNG",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer targets (`make fuzz`; see scripts/fuzz.sh): the decoders and the waveform,
        .executableTarget(name: "voicenote-fuzz-decoders", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteWaveform"]),
        // ... FFmpeg's path alone, whatever the content, with its container and codec whitelist,
        .executableTarget(name: "voicenote-fuzz-ffmpeg", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "VoiceNoteCodec"]),
        // ... and the JSON readers: payloads, message lists and the next-item provider.
        .executableTarget(name: "voicenote-fuzz-json", dependencies: ["VoiceNoteCore", "VoiceNoteJSON", "VoiceNoteAttachments"]),
        .testTarget(name: "VoiceNoteCoreTests", dependencies: ["VoiceNoteCore", "VoiceNoteTestSupport"]),
        // Real fixture files (espeak-ng, sox, opusenc, ffmpeg) shared by the test targets.
        .target(name: "VoiceNoteTestSupport", dependencies: ["VoiceNoteCore", "VoiceNoteSources", "CEBUR128"], path: "Tests/Support"),
        .testTarget(name: "VoiceNoteAudioTests", dependencies: ["VoiceNoteAudio", "VoiceNoteCore", "CALSA", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteSourcesTests", dependencies: ["VoiceNoteSources", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteCodecTests", dependencies: ["VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteRecorderTests", dependencies: ["VoiceNoteRecorder", "VoiceNotePlayer", "VoiceNoteAttachments", "VoiceNoteNetwork", "VoiceNoteAudio", "VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteWaveform", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteWaveformTests", dependencies: ["VoiceNoteWaveform", "VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteNetworkTests", dependencies: ["VoiceNoteNetwork", "VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNotePlayerTests", dependencies: ["VoiceNotePlayer", "VoiceNoteWaveform", "VoiceNoteQueue", "VoiceNoteAttachments", "VoiceNoteNetwork", "VoiceNoteAudio", "VoiceNoteSources", "VoiceNoteCodec", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteDesktopTests", dependencies: ["VoiceNoteDesktop", "VoiceNotePlayer", "VoiceNoteAudio", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteJSONTests", dependencies: ["VoiceNoteJSON", "VoiceNoteCore"]),
        .testTarget(name: "VoiceNoteAttachmentsTests", dependencies: ["VoiceNoteAttachments", "VoiceNoteTranscript", "VoiceNoteJSON", "VoiceNoteNetwork", "VoiceNoteSources", "VoiceNoteCore", "VoiceNoteTestSupport", "VoiceNoteWaveform"]),
        .testTarget(name: "VoiceNoteFlowTests", dependencies: ["VoiceNoteFlow", "VoiceNoteOutbox", "VoiceNoteRecorder", "VoiceNotePlayer", "VoiceNoteAttachments", "VoiceNoteAudio", "VoiceNoteCodec", "VoiceNoteSources", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteTranscriptTests", dependencies: ["VoiceNoteTranscript", "VoiceNoteNetwork", "VoiceNoteSources", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteOutboxTests", dependencies: ["VoiceNoteOutbox", "VoiceNoteAttachments", "VoiceNoteCore", "VoiceNoteTestSupport"]),
        .testTarget(name: "VoiceNoteABITests", dependencies: ["VoiceNoteABI", "VoiceNoteSources", "VoiceNoteWaveform", "CVoiceNote", "VoiceNoteTestSupport"]),
    ]
)
