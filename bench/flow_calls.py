#!/usr/bin/env python3
"""The flow section's child (bench/sections/flow.py): how long each vn_flow_* call blocks its caller with a 10-minute
AAC take in preview. Each run copies the take into a fresh drafts directory with its record, so vn_flow_create
restores it into preview (read back on the flow's worker); then, timing every call on this thread: subscribe,
get_state, play, pause, seek, deactivate, press/move/release (ignored in preview), a trim of the whole take to a
minute (an AAC re-encode that runs for seconds on the worker) and, while it runs, get_state, seek and trim (refused)
and deactivate; after its TRIMMED event, play, pause and another trim, during which the flow is
destroyed. Prints, as JSON, each run's longest call per function.

Usage: flow_calls.py PACKAGE_DIR LIBRARY TAKE WORK RUNS"""
import json
import os
import shutil
import sys
import threading
import time

PACKAGE, LIBRARY, TAKE, WORK, RUNS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
os.environ["VOICENOTE_LIBRARY"] = LIBRARY
sys.path.insert(0, PACKAGE)
import voicenote  # noqa: E402

KEY = "bench"
WAIT_S = 300


class Events:
    """The flow's events, with a wait on a condition (bounded)."""

    def __init__(self) -> None:
        self.items = []
        self.changed = threading.Condition()

    def add(self, event) -> None:
        with self.changed:
            self.items.append(event)
            self.changed.notify_all()

    def wait(self, condition, what: str) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: condition(self.items), WAIT_S):
                raise SystemExit(f"flow_calls.py: timed out waiting for {what}")


def preview_of(events: Events, duration: float) -> bool:
    return any(isinstance(e, voicenote.FlowViewEvent) and e.view.state is voicenote.FlowState.PREVIEW
               and abs(e.view.duration - duration) < 1 for e in events.items)


def one_run(turn: int) -> dict:
    drafts = os.path.join(WORK, f"drafts-{turn}")
    shutil.rmtree(drafts, ignore_errors=True)
    os.makedirs(drafts, mode=0o700)
    shutil.copyfile(TAKE, os.path.join(drafts, "take.aac"))
    with open(os.path.join(drafts, KEY.encode().hex() + ".json"), "w") as record:
        json.dump({"key": KEY, "file": "take.aac", "duration": 0}, record)
    longest = {}

    def timed(name: str, call, *refused) -> None:
        started = time.perf_counter()
        try:
            call()
        except refused:  # a refusal the header documents for this state (a trim running)
            pass
        blocked = time.perf_counter() - started
        longest[name] = max(longest.get(name, 0.0), blocked)

    recorder = voicenote.Recorder(directory=os.path.join(WORK, "takes"), device="null")
    player = voicenote.Player(device="null", remember_positions=False)
    events = Events()
    flow = None

    def create() -> None:
        nonlocal flow
        flow = voicenote.RecordingFlow(recorder, player, draft_key=KEY, drafts_dir=drafts)

    timed("create", create)
    timed("subscribe", lambda: flow.subscribe(events.add))
    events.wait(lambda items: preview_of(events, 600), "the 10-minute take restored into preview")
    for _ in range(3):
        timed("get_state", lambda: flow.state)
        timed("play", flow.play)
        timed("pause", flow.pause)
        timed("seek", lambda: flow.seek(300))
        timed("deactivate", flow.deactivate)
        timed("press", lambda: flow.press(10, 10))
        timed("move", lambda: flow.move(12, 10))
        timed("release", flow.release)
    timed("trim", lambda: flow.trim(0, 60))
    busy = (voicenote.MisuseError,)
    timed("get_state", lambda: flow.state)
    timed("seek", lambda: flow.seek(10), *busy)
    timed("trim", lambda: flow.trim(0, 30), *busy)
    timed("deactivate", flow.deactivate)
    events.wait(lambda items: any(isinstance(e, voicenote.Trimmed) for e in items) and preview_of(events, 60),
                "the trim's end")
    trimmed = [e for e in events.items if isinstance(e, voicenote.Trimmed)][0]
    if trimmed.error is not None:
        raise SystemExit(f"flow_calls.py: the trim failed: {trimmed.error}")
    timed("play", flow.play)
    timed("pause", flow.pause)
    timed("trim", lambda: flow.trim(0, 30))
    timed("destroy", flow.close)  # during that trim: abandoned, the take kept as it was
    recorder.close()
    player.close()
    shutil.rmtree(drafts, ignore_errors=True)
    return longest


print(json.dumps([one_run(turn) for turn in range(RUNS)]))
