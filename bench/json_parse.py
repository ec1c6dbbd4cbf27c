#!/usr/bin/env python3
"""The json section's child (bench/sections/json_parsing.py): times JSON inputs of n and 4n members through the library
(vn_payload_parse, vn_resume_position) and the same texts through jansson's json_loadb alone (the floor: the parser
under ours), in one process, and prints the medians as JSON.

Usage: json_parse.py LIBRARY WORK RUNS"""
import ctypes
import json
import os
import statistics
import sys
import time

LIBRARY, WORK, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.environ["XDG_CACHE_HOME"] = WORK  # the resume store's file: WORK/voicenote/positions/resume-positions.json
library = ctypes.CDLL(LIBRARY)
library.vn_payload_parse.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
library.vn_payload_destroy.argtypes = [ctypes.c_void_p]
library.vn_resume_position.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double)]
jansson = ctypes.CDLL("libjansson.so.4")
jansson.json_loadb.restype = ctypes.c_void_p
jansson.json_loadb.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p]
jansson.json_delete.argtypes = [ctypes.c_void_p]
JSON_REJECT_DUPLICATES, JSON_DECODE_ANY, JSON_ALLOW_NUL = 0x1, 0x4, 0x10  # the library's flags (Jansson.swift)
HEAD = '{"type":"voiceRecording","asset_url":"https://cdn.example/a.ogg","x":'


def wide_object(n: int) -> bytes:
    return (HEAD + "{" + ",".join(f'"k{i}":0' for i in range(n)) + "}}").encode()


def many_objects(n: int) -> bytes:
    return (HEAD + "[" + ",".join('{"a":0}' for _ in range(n)) + "]}").encode()


def resume_store(n: int) -> bytes:
    return ("{" + ",".join(f'"/n/{i:07d}.ogg":[{1 + i % 50},{i}]' for i in range(n)) + "}").encode()


def median_seconds(call) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def parse_payload(text: bytes) -> None:
    handle = ctypes.c_void_p()
    status = library.vn_payload_parse(text, len(text), ctypes.byref(handle))
    if status != 0:
        raise SystemExit(f"vn_payload_parse: status {status}")
    library.vn_payload_destroy(handle)


def look_up(text: bytes) -> None:
    position = ctypes.c_double()
    status = library.vn_resume_position(b"/n/0000007.ogg", None, ctypes.byref(position))
    if status != 0 or position.value != 8:
        raise SystemExit(f"vn_resume_position: status {status}, position {position.value}")


def floor(text: bytes) -> None:
    node = jansson.json_loadb(text, len(text), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, None)
    if not node:
        raise SystemExit("json_loadb failed")
    jansson.json_delete(node)


def store_file(text: bytes) -> None:
    folder = os.path.join(WORK, "voicenote", "positions")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "resume-positions.json"), "wb") as file:
        file.write(text)


SHAPES = (("payload: one object of n keys", wide_object, 23_000, parse_payload),
          ("payload: an array of n objects", many_objects, 30_000, parse_payload),
          ("resume store of n entries", resume_store, 20_000, look_up))
rows = []
for name, make, n, call in SHAPES:
    row = {"shape": name, "n": n}
    for label, count in (("n", n), ("4n", 4 * n)):
        text = make(count)
        if call is look_up:
            store_file(text)
        row[f"bytes_{label}"] = len(text)
        row[f"ours_s_{label}"] = median_seconds(lambda: call(text))
        row[f"floor_s_{label}"] = median_seconds(lambda: floor(text))
    rows.append(row)
print(json.dumps(rows))
