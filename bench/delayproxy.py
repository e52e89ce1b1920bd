#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that delays every chunk by D ms each way (tc netem
is missing in this kernel, see NOTES.md).  make bench's fallback (see
bench/patrol_bench.sh) where the per-packet NFQUEUE delay of nfqdelay.py
cannot be used: round trips = (time through the proxy - time direct) / (2 * D).
It undercounts them: the TCP handshake and bare ACKs end at the proxy.
usage: delayproxy.py LISTEN_PORT_FILE TARGET_PORT DELAY_MS"""
import asyncio
import os
import sys


async def pipe(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def pump():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                break
            writer.write(data)
            await writer.drain()
        writer.close()

    task = asyncio.create_task(pump())
    while True:
        data = await reader.read(65536)
        await queue.put((loop.time() + delay, data or None))
        if not data:
            break
    await task


async def main():
    port_file, target, delay = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1000.0

    async def handle(r, w):
        tr, tw = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(pipe(r, tw, delay), pipe(tr, w, delay), return_exceptions=True)

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.sockets[0].getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    async with srv:
        await srv.serve_forever()


asyncio.run(main())
