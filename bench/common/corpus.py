"""The speech corpus (bench/make_corpus.sh into WORK/corpus, cached): the Ogg Opus notes of 5, 60 and 600 s and
the 600 s PCM."""
import pathlib
import subprocess
import time

from common.errors import BenchError
from common.paths import HERE


def make_corpus(work: pathlib.Path) -> pathlib.Path:
    """bench/make_corpus.sh into WORK/corpus (cached): the Ogg Opus notes and the 600 s PCM."""
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus"
    started = time.perf_counter()
    proc = subprocess.run(["sh", str(HERE / "make_corpus.sh"), str(corpus)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"bench/make_corpus.sh failed:\n{proc.stdout}{proc.stderr}")
    print(f"corpus: {corpus} ({time.perf_counter() - started:.1f} s)", flush=True)
    return corpus
