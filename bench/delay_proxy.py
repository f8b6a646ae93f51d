#!/usr/bin/python3
"""A TCP proxy on 127.0.0.1 that adds a fixed delay to every HTTP request, for bench/compare's
S3 rows (bench/README.md): the latency of a distant object store, on loopback.

    bench/delay_proxy.py UPSTREAM_PORT DELAY_MS [LOG]

Listens on a free port of 127.0.0.1 and prints it on one line once listening; runs until
killed. Each client connection gets its own connection to 127.0.0.1:UPSTREAM_PORT. A request
is the first bytes the client sends after the server's last answer (HTTP/1.1 on a kept-alive
connection: one request at a time); those bytes are held DELAY_MS before they go on, the rest
of the request and the answers pass at once. Connections wait side by side, as requests to a
distant server do. With LOG, each request appends a line to that file as its answer
starts: "<connection> <method> <arrived> <answer started>" (time.monotonic() seconds), so that
the requests under way at any moment can be counted afterwards.
"""
import asyncio
import itertools
import sys
import time


async def pump(reader, writer, on_data):
    try:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                break
            await on_data(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def serve(upstream_port, delay, log):
    connections = itertools.count()

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
        except OSError:
            client_writer.close()
            return
        state = {"new_request": True, "arrived": None, "method": ""}
        connection = next(connections)

        async def request_data(data):
            if state["new_request"]:
                state["new_request"] = False
                state["arrived"] = time.monotonic()
                state["method"] = data.split(b" ", 1)[0].decode("latin-1")
                await asyncio.sleep(delay)

        async def answer_data(_):
            if log and not state["new_request"]:
                log.write(f"{connection} {state['method']} {state['arrived']:.6f} {time.monotonic():.6f}\n")
            state["new_request"] = True

        await asyncio.gather(pump(client_reader, server_writer, request_data),
                             pump(server_reader, client_writer, answer_data))

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    log = open(sys.argv[3], "a", buffering=1) if len(sys.argv) == 4 else None
    asyncio.run(serve(int(sys.argv[1]), float(sys.argv[2]) / 1000, log))


if __name__ == "__main__":
    main()
