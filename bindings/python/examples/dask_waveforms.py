#!/usr/bin/env python3
"""Waveforms of a million voice messages over a Dask cluster: the list of notes is cut into shards, each shard is
one task, and each task runs ``voicenote.waveforms`` — one pool of the library's threads per worker process — and
writes one JSON line per note (path, duration, values, or the error) into a file of its own.

Usage::

    python3 dask_waveforms.py --from notes.txt --out results/ [--scheduler tcp://host:8786] [--shard 1000]
    python3 dask_waveforms.py --from notes.txt --out results/ --local 4      # a LocalCluster of 4 processes

``notes.txt`` holds one path or http(s) URL per line, as every worker sees it (a shared file system, object
storage behind URLs). With ``--scheduler`` the tasks go to any cluster Dask reaches — ``dask-scheduler`` and
``dask-worker`` started by hand, dask-jobqueue on a batch system (SLURM, PBS), dask-kubernetes, a managed
service — as long as its workers can import ``voicenote`` (``pip install`` the wheel ``make wheel`` makes, which
carries the library), started with one Dask thread each (``dask-worker --nthreads 1``): the task's library pool
does the parallel work, with as many threads as the worker's process may use cores (``--threads`` to say
otherwise). Without ``--scheduler``, ``--local N`` starts N worker processes on this machine, sharing its cores.

It prints a summary line: files, failures, seconds, files per second, and files per second per core.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple


def shards(lines: Iterable[str], size: int) -> Iterator[List[str]]:
    """The non-empty lines in lists of ``size``."""
    notes = (line.strip() for line in lines)
    iterator = (note for note in notes if note)
    while True:
        shard = list(itertools.islice(iterator, size))
        if not shard:
            return
        yield shard


def waveform_shard(notes: Sequence[str], output: str, samples: int, threads: Optional[int]) -> Tuple[int, int]:
    """The task: the waveforms of ``notes`` as JSON lines in ``output`` (written aside and renamed, so a retried
    task never leaves half a file). Returns (notes, failures)."""
    import voicenote  # imported on the worker

    failures = 0
    part = output + ".part"
    with open(part, "w", encoding="utf-8") as out:
        for result in voicenote.waveforms(notes, samples=samples, jobs=threads):
            if result.ok:
                line = {"path": result.location, "duration": result.duration,
                        "values": [round(value, 4) for value in result.values]}
            else:
                failures += 1
                line = {"path": result.location, "error": {"status": result.error.name, "message": result.error.message}}
            out.write(json.dumps(line) + "\n")
    os.replace(part, output)
    return len(notes), failures


def usable_cores() -> int:
    """The cores this (worker) process may use."""
    return len(os.sched_getaffinity(0))


def run(client, notes_file: Path, out_dir: Path, shard_size: int, samples: int, threads: Optional[int]) -> dict:
    """Submits one task per shard and waits for them all; returns the summary."""
    from dask.distributed import as_completed

    out_dir.mkdir(parents=True, exist_ok=True)
    workers = len(client.ncores())
    cores = workers * threads if threads else sum(client.run(usable_cores).values())
    start = time.monotonic()
    with open(notes_file, encoding="utf-8") as lines:
        futures = [client.submit(waveform_shard, shard, str(out_dir / f"part-{index:06d}.jsonl"), samples, threads,
                                 pure=False)
                   for index, shard in enumerate(shards(lines, shard_size))]
    files = failures = 0
    for future in as_completed(futures):
        done, failed = future.result()
        files += done
        failures += failed
    seconds = time.monotonic() - start
    return {"files": files, "failures": failures, "shards": len(futures), "seconds": round(seconds, 3),
            "files_per_second": round(files / seconds, 1) if seconds else None, "cores": cores,
            "files_per_second_per_core": round(files / seconds / max(cores, 1), 1) if seconds else None}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="notes", type=Path, required=True, help="one path or URL per line")
    parser.add_argument("--out", type=Path, required=True, help="the folder for the part-*.jsonl files")
    parser.add_argument("--scheduler", help="the address of a Dask scheduler (default: a LocalCluster)")
    parser.add_argument("--local", type=int, default=2, help="worker processes of the LocalCluster (default 2)")
    parser.add_argument("--shard", type=int, default=1000, help="notes per task (default 1000)")
    parser.add_argument("--samples", type=int, default=100, help="values per waveform (default 100)")
    parser.add_argument("--threads", type=int, default=None, help="library threads per worker (default: its cores)")
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        if args.threads is None:  # the machine's cores shared among the workers
            args.threads = max(1, len(os.sched_getaffinity(0)) // args.local)
    try:
        summary = run(client, args.notes, args.out, args.shard, args.samples, args.threads)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    print(json.dumps(summary))
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
