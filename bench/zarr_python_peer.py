#!/usr/bin/python3
# One measured operation of zarr-python 2 (Debian's python3-zarr 2.13, numcodecs 0.11) on
# the bench/compare workload, stored as the equivalent Zarr v2 array (same chunks, numcodecs
# Zstd(level=0) or no compressor). zarr-python 2 has no thread option: it runs serially.
# Usage: /usr/bin/python3 bench/zarr_python_peer.py OP LAYOUT SIZE STORE_DIR   (OP: write | read)
# Prints one JSON line {op, layout, threads: 1, size, seconds, cpu_seconds, mismatches}; only the
# operation is timed. Data are generated and checked one z-plane at a time, so that the
# peak RSS holds the array itself and little else.
import json
import sys
import time

import numcodecs
import numpy as np
import zarr


def plane(n, z):
    """The z-plane of the workload: [y][x] -> (x + y*y // 32 + z**3) mod 65536."""
    y = np.arange(n, dtype=np.uint64).reshape(n, 1)
    x = np.arange(n, dtype=np.uint64).reshape(1, n)
    return ((x + y * y // np.uint64(32) + np.uint64(z) ** 3) % np.uint64(65536)).astype(np.uint16)


def main():
    if len(sys.argv) != 5:
        print("usage: zarr_python_peer.py OP LAYOUT SIZE STORE_DIR", file=sys.stderr)
        return 2
    op, layout, n, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    chunk = 128 if n >= 256 else n // 2  # as zarr.bench.compare
    compressors = {"uncompressed": None, "zstd": numcodecs.Zstd(level=0)}
    if layout not in compressors:
        print(f"zarr-python 2 has no layout {layout} (no sharding in Zarr v2)", file=sys.stderr)
        return 2
    mismatches = 0
    if op == "write":
        data = np.empty((n, n, n), dtype="<u2")
        for z in range(n):
            data[z] = plane(n, z)
        c0, t0 = time.process_time(), time.perf_counter()
        a = zarr.open(path, mode="w", shape=(n, n, n), chunks=(chunk,) * 3, dtype="<u2",
                      compressor=compressors[layout], fill_value=0, order="C")
        a[:] = data
        seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
    elif op == "read":
        c0, t0 = time.process_time(), time.perf_counter()
        a = zarr.open(path, mode="r")
        data = a[:]
        seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
        for z in range(n):
            mismatches += int(np.count_nonzero(data[z] != plane(n, z)))
    else:
        print(f"unknown op {op}", file=sys.stderr)
        return 2
    print(json.dumps({"op": op, "layout": layout, "threads": 1, "size": n, "seconds": seconds, "cpu_seconds": cpu_seconds,
                      "mismatches": mismatches}))
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
