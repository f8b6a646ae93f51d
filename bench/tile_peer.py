#!/usr/bin/python3
"""The Python side of bench/tile (bench/README.md "Tile server"), with Debian's /usr/bin/python3:
writing the Zarr v2 array with zarr-python 2, and the two peers that read it over HTTP.

    tile_peer.py write SIZE DIR          the SIZE x SIZE uint16 array in 256 x 256 chunks,
                                         numcodecs Zlib(level=1), fill value 0, at DIR
    tile_peer.py gdal URL WINDOWS        GDAL's Zarr driver, multidimensional API, over /vsicurl/
    tile_peer.py zarr-python URL WINDOWS zarr-python 2 on fsspec's HTTP filesystem

A reader opens the array at URL, reads each 256 x 256 window "y x" of the file WINDOWS as one
region read, one after another, and prints one JSON line {"seconds": s, "mismatches": m}:
seconds from before the open to the last window; the check of every value against the
workload's formula comes after and is not timed.
"""
import json
import sys
import time

import numpy as np

EDGE = 256  # chunk edge and window edge


def expected(y0, x0, h, w):
    """The workload: value at [y][x] = (x + floor(y*y/32)) mod 65536."""
    y = np.arange(y0, y0 + h, dtype=np.uint64).reshape(h, 1)
    x = np.arange(x0, x0 + w, dtype=np.uint64).reshape(1, w)
    return ((x + y * y // np.uint64(32)) % np.uint64(65536)).astype(np.uint16)


def read_windows(path):
    with open(path) as f:
        windows = [tuple(int(v) for v in line.split()) for line in f if line.strip()]
    if not windows or any(len(w) != 2 for w in windows):
        raise SystemExit(f"{path}: expected lines \"y x\"")
    return windows


def write(size, path):
    import numcodecs
    import zarr
    a = zarr.open(path, mode="w", shape=(size, size), chunks=(EDGE, EDGE), dtype="<u2",
                  compressor=numcodecs.Zlib(level=1), fill_value=0, order="C")
    for y in range(0, size, EDGE):  # one row of chunks at a time
        a[y:y + EDGE, :] = expected(y, 0, EDGE, size)


def open_gdal(url):
    from osgeo import gdal
    gdal.UseExceptions()
    # The driver's own syntax for a store that cannot be listed: ZARR:"/vsicurl/URL" (bench/tile
    # passes the same string in its report). The root of a v2 store that is an array is a group
    # holding that one array.
    ds = gdal.OpenEx(f'ZARR:"/vsicurl/{url}"', gdal.OF_MULTIDIM_RASTER)
    group = ds.GetRootGroup()
    names = group.GetMDArrayNames()
    if len(names) != 1:
        raise SystemExit(f"GDAL: expected one array in the root group of {url}, got {names}")
    arr = group.OpenMDArray(names[0])
    return ds, arr, lambda y, x: arr.ReadAsArray(array_start_idx=[y, x], count=[EDGE, EDGE])


def open_zarr_python(url):
    import fsspec
    import zarr
    z = zarr.open(fsspec.get_mapper(url), mode="r")
    return z, None, lambda y, x: z[y:y + EDGE, x:x + EDGE]


def read(who, url, windows_path):
    windows = read_windows(windows_path)
    opener = {"gdal": open_gdal, "zarr-python": open_zarr_python}[who]
    start = time.perf_counter()
    keep, arr, read_window = opener(url)
    got = [read_window(y, x) for y, x in windows]
    seconds = time.perf_counter() - start
    mismatches = 0
    for (y, x), g in zip(windows, got):
        g = np.asarray(g)
        if g.shape != (EDGE, EDGE):
            mismatches += EDGE * EDGE
            continue
        mismatches += int(np.count_nonzero(g != expected(y, x, EDGE, EDGE)))
    print(json.dumps({"seconds": seconds, "mismatches": mismatches}), flush=True)
    del arr, keep
    return 0 if mismatches == 0 else 1


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "write":
        write(int(sys.argv[2]), sys.argv[3])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] in ("gdal", "zarr-python"):
        return read(sys.argv[1], sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
