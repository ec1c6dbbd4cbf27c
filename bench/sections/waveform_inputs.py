"""What the waveform section runs: the corpus, the C floor (bench/floor_waveform.c) and the C sample
(bindings/c/waveform.c) built into WORK, the maps probe, and the four commands of one file in turn order."""
import math
import os
import pathlib
import re
import shlex

from common.audio import WAVEFORM_SAMPLES
from common.corpus import make_corpus
from common.errors import BenchError
from common.maps_probe import build_maps_probe
from common.ogg import opus_frames_48k
from common.paths import HERE, REPO
from common.process import capture, require_tools

LENGTHS = (5, 60, 600)


def build_inputs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """Builds the corpus (cached), the C floor and the C sample into `work`."""
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "ffprobe", "pkg-config", os.environ.get("CC", "cc")])
    cli = build / "bin" / "voicenote"
    lib = build / "lib"
    for path in (cli, lib / "libvoicenote.so"):
        if not path.exists():
            raise BenchError(f"{path} is missing: run `make build` first")
    corpus = make_corpus(work)

    cc = shlex.split(os.environ.get("CC", "cc"))
    ogg_opus = shlex.split(capture(["pkg-config", "--cflags", "--libs", "ogg", "opus"], "pkg-config ogg opus"))
    floor = work / "floor_waveform"
    sample = work / "waveform_sample"
    capture(cc + ["-O2", "-o", str(floor), str(HERE / "floor_waveform.c")] + ogg_opus + ["-lm"],
            "building the C floor")
    capture(cc + ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include"),
                  "-o", str(sample), str(REPO / "bindings" / "c" / "waveform.c"),
                  "-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"],
            "building the C sample bindings/c/waveform.c")
    return {"cli": cli, "floor": floor, "sample": sample, "probe": build_maps_probe(work),
            "ogg": {length: corpus / f"speech_{length}s.ogg" for length in LENGTHS}}


def waveform_commands(tools: dict, ogg: pathlib.Path) -> dict:
    """The four commands for one file, in turn order."""
    if re.search(r"[,:;=\[\]'\\ ]", str(ogg)):
        raise BenchError(f"{ogg}: the lavfi graph needs a path without , : ; = [ ] ' \\ or spaces")
    per_bucket = math.ceil(opus_frames_48k(ogg) / WAVEFORM_SAMPLES)
    graph = (f"amovie={ogg},asetnsamples=n={per_bucket}:p=0,astats=metadata=1:reset=1:measure_perchannel=none:"
             "measure_overall=RMS_level,ametadata=print:key=lavfi.astats.Overall.RMS_level")
    return {
        "cli": [str(tools["cli"]), "waveform", str(ogg), "--samples", str(WAVEFORM_SAMPLES)],
        "sample": [str(tools["sample"]), "-t", str(ogg), str(WAVEFORM_SAMPLES)],
        "floor": [str(tools["floor"]), str(ogg), str(WAVEFORM_SAMPLES)],
        "ffprobe": ["ffprobe", "-v", "error", "-f", "lavfi", graph,
                    "-show_entries", "frame_tags=lavfi.astats.Overall.RMS_level", "-of", "json"],
    }
