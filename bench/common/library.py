"""A snapshot of the built library in WORK/lib, which the bench's C programs link against instead of build/lib."""
import filecmp
import hashlib
import os
import pathlib
import shutil
import time

from common.errors import BenchError


def stable_copy(source: pathlib.Path, copy: pathlib.Path) -> pathlib.Path:
    """Copies `source` to `copy` (a new inode, so programs still running on an older copy keep theirs), checked: the
    same bytes, and the source unchanged while it was copied; a build rewriting it meanwhile is waited out (5 tries,
    20 s apart)."""
    for _ in range(5):
        before = source.stat()
        tmp = copy.with_name(copy.name + ".tmp")
        shutil.copy2(source, tmp)
        after = source.stat()
        same = (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size)
        if same and filecmp.cmp(source, tmp, shallow=False):
            os.replace(tmp, copy)
            return copy
        tmp.unlink(missing_ok=True)
        print(f"{source} changed while being copied (a build is running?); retrying in 20 s", flush=True)
        time.sleep(20)
    raise BenchError(f"{source} kept changing while being copied")


def snapshot_library(build: pathlib.Path, work: pathlib.Path) -> dict:
    """Copies the built .so into WORK/lib (with its SONAME links) and returns it with its SHA-256.

    The recorder's C programs link against this copy, not build/lib: `make build` rewrites build/lib's .so in
    place (cp), and a process that has the old one mapped dies of SIGBUS when someone rebuilds during a 10-minute
    section. The copy is checked against its source (same bytes, source unchanged while copying)."""
    so = (build / "lib" / "libvoicenote.so").resolve()
    if not so.exists():
        raise BenchError(f"{so} is missing: run `make build` first")
    lib = work / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    copy = stable_copy(so, lib / so.name)
    soname = "libvoicenote.so." + so.name.split(".so.", 1)[1].split(".")[0]
    for link, target in ((soname, copy.name), ("libvoicenote.so", soname)):
        path = lib / link
        if path.is_symlink() or path.exists():
            path.unlink()
        path.symlink_to(target)
    return {"lib": lib, "source": str(so), "sha256": hashlib.sha256(copy.read_bytes()).hexdigest(),
            "source_mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(so.stat().st_mtime))}
