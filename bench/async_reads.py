#!/usr/bin/python3
"""64 asynchronous reads of 64 different chunks from one thread, through the C API (libzarr.so
via ctypes), on the RADOS Gateway behind bench/delay_proxy.py (20 ms per request): the issue's
goal is all of them within 2 x 20 ms plus decode time (bench/README.md, BENCHMARKS.md).

    bench/async_reads.py LIBZARR_SO RGW_ENV_FILE [REPEAT]

Prints one Markdown table row per way of reading: the 64 reads started at once from one thread
(zarr_array_read_async, then zarr_wait on each), and the same 64 one after another
(zarr_array_read), each the best of REPEAT (5) rounds after one warm-up round.
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
proxy = subprocess.Popen([sys.executable, os.path.join(ROOT, "bench", "delay_proxy.py"), direct.rsplit(":", 1)[1], "20"],
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

    def one_after_another():
        for i in range(CHUNKS):
            call(lib.zarr_array_read(a, (U64 * 1)(i * EDGE), (U64 * 1)((i + 1) * EDGE), FLOAT64, out[i],
                                     ctypes.c_size_t(EDGE * 8), None, None))

    for name, run in (("64 x zarr_array_read_async from one thread", in_flight), ("64 x zarr_array_read, one after another", one_after_another)):
        times = []
        for _ in range(repeat + 1):
            t = time.perf_counter()
            run()
            times.append(time.perf_counter() - t)
        assert all(out[i][k] == i * EDGE + k for i in (0, 63) for k in (0, EDGE - 1))
        best = min(times[1:])
        print(f"| {name} | 64 chunks of 64 KiB, +20 ms per request | {best * 1000:.1f} ms | "
              f"{'met' if best <= 0.040 else 'not met'} (goal: 2 x 20 ms + decode) |")
finally:
    proxy.terminate()
