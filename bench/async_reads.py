#!/usr/bin/python3
"""64 asynchronous reads of 64 different chunks from one thread, through the C API (libzarr.so
via ctypes), on the RADOS Gateway behind bench/delay_proxy.py (20 ms per request): the issue's
goal is all of them within 2 x 20 ms plus decode time (bench/README.md, BENCHMARKS.md).

    bench/async_reads.py LIBZARR_SO RGW_ENV_FILE [REPEAT [DELAY_MS]]

Prints one Markdown table row per way of reading: the 64 reads started at once from one thread
(zarr_array_read_async, then zarr_wait on each); the same 64 chunks in one zarr_array_read call
(one batch of 64 GETs in flight: the library's floor for these requests, on this proxy and
gateway); and the 64 one after another (zarr_array_read). Each is the best of REPEAT (5) rounds
after one warm-up round. DELAY_MS (20) is the proxy's delay per request; 0 shows what the
gateway, the proxy and the library cost without it.
"""
import ctypes
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
lib = ctypes.CDLL(sys.argv[1])
env = dict(line.strip().split("=", 1) for line in open(sys.argv[2]) if "=" in line)
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
delay_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 20
h = ctypes.c_void_p
lib.zarr_last_error.restype = ctypes.c_char_p
for f in ("zarr_array_read", "zarr_array_read_async", "zarr_array_create", "zarr_array_open", "zarr_array_write"):
    getattr(lib, f).argtypes = None
U64 = ctypes.c_uint64
FLOAT64, CHUNKS, EDGE = 26, 64, 8192  # 64 chunks of 64 KiB


def call(rc):
    if rc != 0:
        raise RuntimeError(lib.zarr_last_error().decode())


def store(endpoint):
    s = h()
    options = {"endpoint": endpoint, "region": env["S3_REGION"], "access_key_id": env["S3_ACCESS_KEY"],
               "secret_access_key": env["S3_SECRET_KEY"], "create_bucket": True}
    call(lib.zarr_store_open(f"s3://zarr-bench-async-{os.getpid()}".encode(), json.dumps(options).encode(), ctypes.byref(s)))
    return s


direct = env["S3_ENDPOINT"]
proxy = subprocess.Popen([sys.executable, os.path.join(ROOT, "bench", "delay_proxy.py"), direct.rsplit(":", 1)[1], str(delay_ms)],
                         stdout=subprocess.PIPE, text=True)
try:
    delayed = f"http://127.0.0.1:{proxy.stdout.readline().strip()}"
    s = store(direct)
    a = h()
    shape, chunk = (U64 * 1)(CHUNKS * EDGE), (U64 * 1)(EDGE)
    call(lib.zarr_array_create(s, b"t", ctypes.c_size_t(1), shape, chunk, FLOAT64, 0, None,
                               b'[{"name":"bytes","configuration":{"endian":"little"}}]', None, 1, ctypes.byref(a)))
    values = (ctypes.c_double * (CHUNKS * EDGE))(*range(CHUNKS * EDGE))
    call(lib.zarr_array_write(a, (U64 * 1)(0), shape, FLOAT64, values, ctypes.c_size_t(ctypes.sizeof(values)), None, None))
    s = store(delayed)
    call(lib.zarr_array_open(s, b"t", ctypes.byref(a)))
    out = [(ctypes.c_double * EDGE)() for _ in range(CHUNKS)]

    def in_flight():
        ops = []
        for i in range(CHUNKS):
            op = h()
            call(lib.zarr_array_read_async(a, (U64 * 1)(i * EDGE), (U64 * 1)((i + 1) * EDGE), FLOAT64, out[i],
                                           ctypes.c_size_t(EDGE * 8), None, None, ctypes.byref(op)))
            ops.append(op)
        for op in ops:
            call(lib.zarr_wait(op))
            lib.zarr_operation_free(op)

    everything = (ctypes.c_double * (CHUNKS * EDGE))()

    def one_batch():
        call(lib.zarr_array_read(a, (U64 * 1)(0), shape, FLOAT64, everything, ctypes.c_size_t(ctypes.sizeof(everything)),
                                 None, None))
        ctypes.memmove(out[0], everything, EDGE * 8)
        ctypes.memmove(out[63], ctypes.byref(everything, 63 * EDGE * 8), EDGE * 8)

    def one_after_another():
        for i in range(CHUNKS):
            call(lib.zarr_array_read(a, (U64 * 1)(i * EDGE), (U64 * 1)((i + 1) * EDGE), FLOAT64, out[i],
                                     ctypes.c_size_t(EDGE * 8), None, None))

    ways = (("64 x zarr_array_read_async from one thread, then zarr_wait", in_flight),
            ("1 x zarr_array_read of the 64 chunks (one batch: the floor)", one_batch),
            ("64 x zarr_array_read, one after another", one_after_another))
    for name, run in ways:
        times = []
        for _ in range(repeat + 1):
            t = time.perf_counter()
            run()
            times.append(time.perf_counter() - t)
        assert all(out[i][k] == i * EDGE + k for i in (0, 63) for k in (0, EDGE - 1))
        best = min(times[1:])
        print(f"| {name} | 64 chunks of 64 KiB, +{delay_ms} ms per request | {best * 1000:.1f} ms |")
finally:
    proxy.terminate()
