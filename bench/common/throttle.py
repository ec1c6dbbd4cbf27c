#!/usr/bin/env python3
"""A throttling TCP proxy on loopback: what a weak uplink (a train, a weak cell) looks like to an uploader. It
listens on 127.0.0.1, forwards every connection to TARGET_PORT, and paces the client → server direction at RATE
bytes per second (a token bucket with a 4 KiB burst); the server → client direction is not paced (answers are
small). Prints ``PORT <n>`` once listening; serves until SIGTERM.

Usage: throttle.py TARGET_PORT RATE"""
import asyncio
import signal
import socket
import sys
import time

BURST = 4096
PIECE = 1024


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, rate: float) -> None:
    """Copies until the reader ends; with a rate, no faster than `rate` bytes per second."""
    allowance, last = float(BURST), time.monotonic()
    try:
        while True:
            data = await reader.read(PIECE if rate else 65536)
            if not data:
                break
            if rate:
                now = time.monotonic()
                allowance = min(BURST, allowance + (now - last) * rate)
                last = now
                if allowance < len(data):
                    await asyncio.sleep((len(data) - allowance) / rate)
                    allowance, last = 0.0, time.monotonic()
                else:
                    allowance -= len(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def forward(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter, target: int,
                  rate: float) -> None:
    """Forwards one connection to `target` both ways, the client's bytes paced at `rate`."""
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pump(client_reader, server_writer, rate), pump(server_reader, client_writer, 0))


#: The proxy's receive buffer: small, so the backlog of a paced upload waits in the client's send queue and drains
#: as the proxy reads, as it does behind a real slow uplink (acknowledged at the link's rate). A large buffer would
#: take megabytes at once and then hold its window shut while it drains, which no real link does.
RECEIVE_BUFFER = 16384


async def serve(handle) -> None:
    """Listens on 127.0.0.1 with `handle` for each connection, prints ``PORT <n>``, serves until SIGTERM."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)  # before listen: accepted ones inherit it
    listener.bind(("127.0.0.1", 0))
    server = await asyncio.start_server(handle, sock=listener)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()


async def main(target: int, rate: float) -> None:
    await serve(lambda reader, writer: forward(reader, writer, target, rate))


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2])))
