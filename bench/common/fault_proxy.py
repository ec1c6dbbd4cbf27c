#!/usr/bin/env python3
"""A faulty TCP proxy on loopback for the outbox's fault trials: forwards every connection to TARGET_PORT, pacing
the client → server direction at RATE bytes per second (throttle.py's pump), and spoils a share of the connections
as a bad network or a struggling server would:

    cut      with probability P, the connection is cut (both ways closed) after a random number of request bytes
             (0 … 64 KiB): a lost link mid-upload
    refuse   with probability P, the request's head is read and answered ``503 Service Unavailable`` (or ``500``,
             alternately) without reaching the server: a struggling server or its gateway
    none     nothing spoiled

The random choices come from SEED. Prints ``PORT <n>`` once listening; serves until SIGTERM.

Usage: fault_proxy.py TARGET_PORT RATE MODE P SEED"""
import asyncio
import random
import sys

from throttle import forward, serve

CUT_MAX_BYTES = 65536


async def cut_after(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, rate: float, limit: int) -> None:
    """Forwards at most `limit` bytes (paced), then closes both ways."""
    sent = 0
    try:
        while sent < limit:
            data = await reader.read(min(1024, limit - sent))
            if not data:
                break
            await asyncio.sleep(len(data) / rate if rate else 0)
            writer.write(data)
            await writer.drain()
            sent += len(data)
    except ConnectionError:
        pass
    finally:
        writer.close()


async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, code: int) -> None:
    """Reads the request's head and answers `code` with Connection: close."""
    try:
        await reader.readuntil(b"\r\n\r\n")
        reason = "Service Unavailable" if code == 503 else "Internal Server Error"
        writer.write(f"HTTP/1.1 {code} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main(target: int, rate: float, mode: str, probability: float, seed: int) -> None:
    chance = random.Random(seed)
    refusals = [0]

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        spoiled = mode != "none" and chance.random() < probability
        if spoiled and mode == "refuse":
            refusals[0] += 1
            await refuse(client_reader, client_writer, 503 if refusals[0] % 2 else 500)
        elif spoiled and mode == "cut":
            try:
                _, server_writer = await asyncio.open_connection("127.0.0.1", target)
            except OSError:
                client_writer.close()
                return
            await cut_after(client_reader, server_writer, rate, chance.randrange(0, CUT_MAX_BYTES))
            client_writer.close()
        else:
            await forward(client_reader, client_writer, target, rate)

    await serve(handle)

if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], float(sys.argv[4]), int(sys.argv[5])))
