"""Reading Ogg Opus files directly: the length in 48 kHz frames (last granule minus pre-skip), and the pages and
audio packets."""
import hashlib
import os
import pathlib
import struct

from common.errors import BenchError


def opus_frames_48k(path: pathlib.Path) -> int:
    """Frames of an Ogg Opus file at 48 kHz: its last granule position minus the pre-skip."""
    with open(path, "rb") as f:
        head = f.read(65536)
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 65536))
        tail = f.read()
    if head[:4] != b"OggS" or len(head) < 27:
        raise BenchError(f"{path}: not an Ogg file")
    serial = struct.unpack_from("<I", head, 14)[0]
    body = 27 + head[26]
    if head[body:body + 8] != b"OpusHead":
        raise BenchError(f"{path}: not Ogg Opus")
    pre_skip = struct.unpack_from("<H", head, body + 10)[0]
    at = tail.rfind(b"OggS")
    while at >= 0:
        if at + 27 <= len(tail) and tail[at + 4] == 0 and struct.unpack_from("<I", tail, at + 14)[0] == serial:
            granule = struct.unpack_from("<q", tail, at + 6)[0]
            if granule >= 0:
                return max(0, granule - pre_skip)
        at = tail.rfind(b"OggS", 0, at)
    raise BenchError(f"{path}: no granule position in its last 64 KiB")


def ogg_audio_packets(path: pathlib.Path) -> dict:
    """Pages, audio packets (after the two headers), their bytes and a digest of their concatenation."""
    data = path.read_bytes()
    at, pages, packets, current = 0, 0, [], b""
    while at < len(data):
        if data[at:at + 4] != b"OggS" or at + 27 > len(data):
            raise BenchError(f"{path}: not an Ogg page at byte {at}")
        count = data[at + 26]
        body = at + 27 + count
        for lace in data[at + 27:at + 27 + count]:
            current += data[body:body + lace]
            body += lace
            if lace < 255:
                packets.append(current)
                current = b""
        pages += 1
        at = body
    audio = packets[2:]
    return {"pages": pages, "packets": len(audio), "packet_bytes": sum(map(len, audio)),
            "packets_sha256": hashlib.sha256(b"".join(audio)).hexdigest()}
