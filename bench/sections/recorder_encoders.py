"""The three encoders of the recorder CPU section, in turn order, and their settings:
    ours          bench/record_file.c: libvoicenote's recorder from a virtual microphone (ALSA `file` plugin
                  reading the PCM, given as configuration text), defaults of docs/formats.md, maximum length exactly
                  600 s, waits for FINISHED
    opusenc same  opusenc --bitrate 32 --framesize 20 --comp 10 --vbr --raw ... with our other settings (VOIP,
                  decision delay 0, pages of at most 500 ms): its Opus packets are checked to equal ours
    opusenc       the same without them (opusenc's defaults: application audio, 1 s pages)"""
import pathlib

from common.audio import PCM_RATE

# opusenc set as our recorder: OPUS_SET_APPLICATION(OPUS_APPLICATION_VOIP), OPE_SET_DECISION_DELAY(0), and pages
# of at most 500 ms (OPE_SET_MUXING_DELAY(24000)); VBR and complexity 10 are its defaults and ours.
OPUSENC_SAME_SETTINGS = ["--max-delay", "500", "--set-ctl-int", "4000=2048", "--set-ctl-int", "14000=0"]
RECORDER_LABELS = {
    "ours": "ours: libvoicenote recorder (bench/record_file.c)",
    "opusenc_same": "opusenc, same settings (VOIP, max delay 500 ms, decision delay 0)",
    "opusenc": "opusenc as is (its defaults: application audio, max delay 1000 ms)",
}


def recorder_cpu_commands(inputs: dict, raw: pathlib.Path, seconds: int, outputs: pathlib.Path) -> dict:
    """The three encoders of one turn, in turn order, on `raw` (`seconds` long)."""
    opusenc = ["opusenc", "--quiet", "--bitrate", "32", "--framesize", "20", "--comp", "10", "--vbr", "--raw",
               "--raw-rate", str(PCM_RATE), "--raw-chan", "1"]
    return {
        "ours": [str(inputs["programs"]["record_file"]), str(outputs / "ours"), str(raw), str(seconds)],
        "opusenc_same": opusenc + OPUSENC_SAME_SETTINGS + [str(raw), str(outputs / "opusenc_same.ogg")],
        "opusenc": opusenc + [str(raw), str(outputs / "opusenc.ogg")],
    }


def recorder_settings() -> dict:
    """What both encoders are set to, and where opusenc's defaults differ from ours (docs/formats.md, docs/recorder.md)."""
    return {
        "ours": "libopusenc pull API: 32 kbit/s VBR, complexity 10, 20 ms, OPUS_APPLICATION_VOIP, "
                "OPE_SET_DECISION_DELAY(0), OPE_SET_MUXING_DELAY(24000); beside the encode: the meter (every 0.1 s) "
                "and its own Ogg pages decoded at 16 kHz with §5.1 blocks of that, for the take's waveform (the "
                "captured PCM's dB blocks only when that analysis cannot run)",
        "opusenc": "opus-tools opusenc on libopusenc: VBR and complexity 10 are its defaults (as ours); its "
                   "application is OPUS_APPLICATION_AUDIO (ours VOIP), its muxing delay 1000 ms (ours 500 ms), its "
                   "decision delay libopusenc's default 96000 (ours 0)",
        "opusenc_same": "opusenc " + " ".join(OPUSENC_SAME_SETTINGS) + ": 4000 = OPUS_SET_APPLICATION_REQUEST, "
                        "2048 = OPUS_APPLICATION_VOIP, 14000 = OPE_SET_DECISION_DELAY_REQUEST; --max-delay 500 = "
                        "OPE_SET_MUXING_DELAY(24000). Its Opus packets are checked to equal ours byte for byte",
    }
