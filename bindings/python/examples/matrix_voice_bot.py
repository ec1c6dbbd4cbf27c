#!/usr/bin/env python3
"""A Matrix bot that answers every voice message in its rooms with the note's length and a copy of it at twice the
speed, sent back as a proper voice message (Element shows it with its waveform, and plays it).

It is an asyncio program over ``voicenote.aio`` and plain HTTP (the standard library's ``urllib`` in the loop's
executor; no Matrix SDK): the library's events arrive on the asyncio thread, and the blocking work — reading the
note's facts, writing the faster copy — runs in the executor, straight from the homeserver's authenticated-media
URL, never through ffmpeg or a temporary download.

For each ``m.room.message`` that is a voice message (``org.matrix.msc3245.voice``) from someone else:

1. the ``mxc://`` URI becomes the authenticated-media download URL (``voicenote.matrix_download_url``), read with
   ``Authorization: Bearer <token>``;
2. ``voicenote.aio.info`` gives the note's length, which the bot posts as a notice in reply;
3. ``voicenote.aio.convert`` writes the note again as Ogg Opus at 2x with its pitch kept;
4. a ``voicenote.Uploader`` in raw mode uploads it to ``/_matrix/media/v3/upload`` (its answer's ``content_uri``
   becomes the payload's ``asset_url``), and ``payload.to_matrix_content()`` is the voice message's content — the
   duration, size and MIME type, and the waveform of the new file in Matrix's encoding — sent in reply.

Usage::

    MATRIX_ACCESS_TOKEN=… python3 matrix_voice_bot.py --homeserver https://matrix.example.org [--room '!id:server']

It joins the rooms it is invited to (all of them, or those named with ``--room``), ignores what was said before it
started, and runs until interrupted (or, for tests, until it has answered ``--max-replies`` notes). It prints one
line per note answered, and ``ready`` once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple

import voicenote
import voicenote.aio as vaio

#: Seconds a sync long-poll waits for news at the server.
SYNC_WAIT_S = 20
#: Seconds any one HTTP request may take (a long poll's wait included).
REQUEST_TIMEOUT_S = SYNC_WAIT_S + 30


class Matrix:
    """The few client-server API calls the bot makes, with its access token, in the loop's executor."""

    def __init__(self, homeserver: str, token: str) -> None:
        self.homeserver = homeserver.rstrip("/")
        self.token = token
        self.auth = {"Authorization": f"Bearer {token}"}

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.homeserver + path, data=data, method=method,
                                         headers={**self.auth, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"{method} {path}: HTTP {error.code} {error.read()[:300]!r}") from None

    async def call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        return await asyncio.get_running_loop().run_in_executor(None, self._request, method, path, body)

    async def whoami(self) -> str:
        return str((await self.call("GET", "/_matrix/client/v3/account/whoami"))["user_id"])

    async def sync(self, since: Optional[str], wait_s: int) -> Dict[str, Any]:
        query = {"timeout": str(wait_s * 1000)}
        if since:
            query["since"] = since
        return await self.call("GET", "/_matrix/client/v3/sync?" + urllib.parse.urlencode(query))

    async def join(self, room_id: str) -> None:
        await self.call("POST", f"/_matrix/client/v3/rooms/{urllib.parse.quote(room_id)}/join", {})

    async def send(self, room_id: str, content: Dict[str, Any]) -> str:
        path = (f"/_matrix/client/v3/rooms/{urllib.parse.quote(room_id)}/send/m.room.message/"
                f"{uuid.uuid4().hex}")
        return str((await self.call("PUT", path, content))["event_id"])


def voice_messages(sync: Dict[str, Any], me: str) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """(room id, event) for each voice message from someone else in a sync response's joined rooms."""
    for room_id, room in sync.get("rooms", {}).get("join", {}).items():
        for event in room.get("timeline", {}).get("events", []):
            content = event.get("content")
            if event.get("type") != "m.room.message" or event.get("sender") == me or not isinstance(content, dict):
                continue
            try:
                if voicenote.is_matrix_voice_message(content):
                    yield room_id, event
            except voicenote.FormatError:
                continue  # other messages, and m.audio without an mxc:// url


def reply_to(event_id: str) -> Dict[str, Any]:
    return {"m.relates_to": {"m.in_reply_to": {"event_id": event_id}}}


def clock(seconds: float) -> str:
    whole = int(round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


class VoiceBot:
    """Answers voice messages: their length as a notice, then a copy at ``rate`` as a voice message."""

    def __init__(self, matrix: Matrix, rooms: Sequence[str], rate: float, folder: Path) -> None:
        self.matrix = matrix
        self.rooms = set(rooms)
        self.rate = rate
        self.folder = folder
        self.loop = vaio.EventLoop()
        self.uploader = voicenote.Uploader(matrix.homeserver + "/_matrix/media/v3/upload", mode="raw",
                                           headers=matrix.auth, loop=self.loop)

    def close(self) -> None:
        self.uploader.close()
        self.loop.close()

    def wanted(self, room_id: str) -> bool:
        return not self.rooms or room_id in self.rooms

    async def answer(self, room_id: str, event: Dict[str, Any]) -> str:
        received = voicenote.VoiceRecordingPayload.from_matrix_content(event["content"])
        url = voicenote.matrix_download_url(received.asset_url, self.matrix.homeserver)
        http = voicenote.HTTPOptions(headers=self.matrix.auth)
        length = (await vaio.info(url, http=http))["duration"]
        await self.matrix.send(room_id, {"msgtype": "m.notice", "body": f"Voice message, {clock(length)} ({length:.1f} s)",
                                         **reply_to(event["event_id"])})
        faster = self.folder / f"{uuid.uuid4().hex}.ogg"
        try:
            duration = await vaio.convert(url, faster, rate=self.rate, http=http)
            payload = await vaio.from_recording(faster, duration)
            sent = await vaio.upload(self.uploader, faster, payload)
            content = sent.to_matrix_content(body=f"Voice message at {self.rate:g}x")
            await self.matrix.send(room_id, {**content, **reply_to(event["event_id"])})
        finally:
            faster.unlink(missing_ok=True)
        return f"answered {event['event_id']} in {room_id}: {length:.2f} s, {duration:.2f} s at {self.rate:g}x"

    async def join_invited(self, sync: Dict[str, Any]) -> None:
        for room_id in sync.get("rooms", {}).get("invite", {}):
            if self.wanted(room_id):
                await self.matrix.join(room_id)

    async def run(self, max_replies: Optional[int]) -> None:
        me = await self.matrix.whoami()
        first = await self.matrix.sync(None, 0)
        await self.join_invited(first)  # invitations waiting: accepted; what was said before: not answered
        since = first.get("next_batch")
        print("ready", flush=True)
        replies = 0
        while max_replies is None or replies < max_replies:
            sync = await self.matrix.sync(since, SYNC_WAIT_S)
            since = sync.get("next_batch", since)
            await self.join_invited(sync)
            for room_id, event in voice_messages(sync, me):
                if self.wanted(room_id):
                    try:
                        print(await self.answer(room_id, event), flush=True)
                    except (voicenote.VoiceNoteError, RuntimeError, OSError) as error:
                        # A note it cannot read (damaged, gone, refused): said in the room, the bot goes on.
                        print(f"could not answer {event['event_id']}: {error}", file=sys.stderr, flush=True)
                        await self.matrix.send(room_id, {"msgtype": "m.notice", **reply_to(event["event_id"]),
                                                         "body": f"Could not read this voice message ({error})."})
                    replies += 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--homeserver", required=True, help="the homeserver's base URL")
    parser.add_argument("--token", default=os.environ.get("MATRIX_ACCESS_TOKEN"),
                        help="the bot's access token (default: $MATRIX_ACCESS_TOKEN)")
    parser.add_argument("--room", action="append", default=[], help="answer only in this room (repeatable)")
    parser.add_argument("--rate", type=float, default=2.0, help="the copy's speed, 0.5…2.5 (default 2)")
    parser.add_argument("--max-replies", type=int, default=None, help="stop after answering this many notes")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("no access token: give --token or set MATRIX_ACCESS_TOKEN")

    async def run() -> None:
        with tempfile.TemporaryDirectory(prefix="voice-bot-") as folder:
            bot = VoiceBot(Matrix(args.homeserver, args.token), args.room, args.rate, Path(folder))
            try:
                await bot.run(args.max_replies)
            finally:
                bot.close()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
