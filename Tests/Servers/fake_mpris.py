#!/usr/bin/env python3
# dbus-next reads the D-Bus signatures from the annotations ("s", "a{sv}"): no `from __future__ import annotations`.
"""Fake MPRIS 2 players on the session bus ($DBUS_SESSION_BUS_ADDRESS), for tests of voicenote's desktop side.

    fake_mpris.py --log calls.jsonl music:Playing podcast:Paused video:Playing

Each NAME:STATUS is a player `org.mpris.MediaPlayer2.NAME` on a connection of its own, whose PlaybackStatus starts
as STATUS and follows Pause, Play and PlayPause. Every call is appended to the log as a JSON line
{"player": NAME, "call": METHOD, "t": monotonic seconds} and flushed. "READY" is printed once every name is owned.
A player that never answers is this script stopped with SIGSTOP by the test. It ends on SIGTERM (or, with
--exit-with-stdin, when standard input closes: the test process died)."""
import argparse
import asyncio
import json
import signal
import sys
import time

from dbus_next import Variant
from dbus_next.aio import MessageBus
from dbus_next.service import PropertyAccess, ServiceInterface, dbus_property, method


class Root(ServiceInterface):
    def __init__(self, name: str) -> None:
        super().__init__("org.mpris.MediaPlayer2")
        self.player_name = name

    @dbus_property(access=PropertyAccess.READ)
    def Identity(self) -> "s":  # noqa: F821
        return self.player_name

    @dbus_property(access=PropertyAccess.READ)
    def CanQuit(self) -> "b":  # noqa: F821
        return False


class Player(ServiceInterface):
    def __init__(self, name: str, status: str, log) -> None:
        super().__init__("org.mpris.MediaPlayer2.Player")
        self.player_name, self.status, self.log = name, status, log

    def _note(self, call: str) -> None:
        self.log.write(json.dumps({"player": self.player_name, "call": call, "t": time.monotonic()}) + "\n")
        self.log.flush()

    def _set(self, status: str) -> None:
        self.status = status
        self.emit_properties_changed({"PlaybackStatus": status})

    @dbus_property(access=PropertyAccess.READ)
    def PlaybackStatus(self) -> "s":  # noqa: F821
        return self.status

    @dbus_property(access=PropertyAccess.READ)
    def Metadata(self) -> "a{sv}":  # noqa: F821
        return {"mpris:trackid": Variant("o", "/org/example/track/1"), "xesam:title": Variant("s", self.player_name)}

    @dbus_property(access=PropertyAccess.READ)
    def CanControl(self) -> "b":  # noqa: F821
        return True

    @dbus_property(access=PropertyAccess.READ)
    def CanPause(self) -> "b":  # noqa: F821
        return True

    @dbus_property(access=PropertyAccess.READ)
    def CanPlay(self) -> "b":  # noqa: F821
        return True

    @method()
    def Pause(self):
        self._note("Pause")
        if self.status == "Playing":
            self._set("Paused")

    @method()
    def Play(self):
        self._note("Play")
        self._set("Playing")

    @method()
    def PlayPause(self):
        self._note("PlayPause")
        self._set("Paused" if self.status == "Playing" else "Playing")

    @method()
    def Stop(self):
        self._note("Stop")
        self._set("Stopped")


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("players", nargs="+", help="NAME:STATUS")
    arguments = parser.parse_args()
    log = open(arguments.log, "a", encoding="utf-8")
    buses = []
    for spec in arguments.players:
        name, _, status = spec.partition(":")
        bus = await MessageBus().connect()
        bus.export("/org/mpris/MediaPlayer2", Root(name))
        bus.export("/org/mpris/MediaPlayer2", Player(name, status or "Playing", log))
        await bus.request_name("org.mpris.MediaPlayer2." + name)
        buses.append(bus)
    print("READY", flush=True)
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, done.set)
    if arguments.exit_with_stdin:
        loop.add_reader(sys.stdin.fileno(), lambda: done.set() if not sys.stdin.read(1) else None)
    await done.wait()
    for bus in buses:
        bus.disconnect()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
