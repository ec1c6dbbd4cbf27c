"""A snapshot of the built library in WORK/lib, which the bench's C programs link against instead of build/lib."""
import filecmp
import hashlib
import os
import pathlib
import shutil
import time

from common.errors import BenchError


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
    for attempt in range(5):
        before = so.stat()
        copy = lib / so.name
        tmp = lib / (so.name + ".tmp")
        shutil.copyfile(so, tmp)
        after = so.stat()
        same = (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size)
        if same and filecmp.cmp(so, tmp, shallow=False):
            os.replace(tmp, copy)  # a new inode: programs still running on an older copy keep theirs
            break
        tmp.unlink(missing_ok=True)
        print(f"{so} changed while being copied (a build is running?); retrying in 20 s", flush=True)
        time.sleep(20)
    else:
        raise BenchError(f"{so} kept changing while being copied")
    soname = "libvoicenote.so." + so.name.split(".so.", 1)[1].split(".")[0]
    for link, target in ((soname, copy.name), ("libvoicenote.so", soname)):
        path = lib / link
        if path.is_symlink() or path.exists():
            path.unlink()
        path.symlink_to(target)
    return {"lib": lib, "source": str(so), "sha256": hashlib.sha256(copy.read_bytes()).hexdigest(),
            "source_mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(so.stat().st_mtime))}
