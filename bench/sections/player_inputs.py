"""What the player and remote sections run: the sink both sides play to (`pcm.vn_bench`, ALSA's `file` plugin over
`null`, unpaced), the corpus's 600 s and 5 s notes, a snapshot of the library, and bench/play_file.c,
bench/play_latency.c built against it."""
import os
import pathlib
import re
import shlex

from common.corpus import make_corpus
from common.errors import BenchError
from common.library import snapshot_library
from common.paths import HERE, REPO
from common.process import capture, require_tools

PLAYER_SECONDS = 600                          # speech_600s.ogg
PLAYER_DEVICE = "vn_bench"                    # the unpaced sink both sides play to (ALSA file plugin over null)


def player_device(output) -> str:
    """ALSA configuration text of the sink both sides play to: the file plugin over a null slave, unpaced (it takes
    frames as fast as they are written), copying them into `output` (/dev/null when timed)."""
    return f'pcm.{PLAYER_DEVICE} {{ type file slave.pcm {{ type null }} file "{output}" format raw }}'


def build_player_inputs(build: pathlib.Path, work: pathlib.Path) -> dict:
    """The corpus (speech_600s.ogg, speech_5s.ogg), a snapshot of the library, bench/play_file.c and
    bench/play_latency.c."""
    cc_name = os.environ.get("CC", "cc")
    require_tools(["espeak-ng", "sox", "soxi", "opusenc", "opusdec", "aplay", "pkg-config", cc_name])
    corpus = make_corpus(work)
    folder = work / "player"
    folder.mkdir(parents=True, exist_ok=True)
    if re.search(r'["\\\\ ]', str(folder)) or re.search(r'["\\\\ ]', str(corpus)):
        raise BenchError(f"{folder}: the ALSA configuration text and the shell line need a path without \", \\ or spaces")
    snapshot = snapshot_library(build, work)
    lib = snapshot["lib"]
    cc = shlex.split(cc_name)
    alsa = shlex.split(capture(["pkg-config", "--cflags", "--libs", "alsa"], "pkg-config alsa"))
    flags = ["-O2", "-Wall", "-Wextra", "-pedantic", "-I", str(REPO / "include")]
    link = ["-L", str(lib), f"-Wl,-rpath,{lib}", "-lvoicenote", "-pthread"]
    programs = {"play_file": work / "play_file", "play_latency": work / "play_latency"}
    capture(cc + ["-std=c99"] + flags + ["-o", str(programs["play_file"]), str(HERE / "play_file.c")] + link,
            "building bench/play_file.c")
    # -rdynamic: play_latency's own snd_pcm_writei (which times the first frame) must take the library's calls.
    capture(cc + ["-std=c11", "-rdynamic"] + flags + ["-o", str(programs["play_latency"]), str(HERE / "play_latency.c")]
            + link + alsa + ["-ldl"], "building bench/play_latency.c")
    return {"ogg": corpus / f"speech_{PLAYER_SECONDS}s.ogg", "short_ogg": corpus / "speech_5s.ogg", "dir": folder,
            "snapshot": snapshot, "programs": programs}
