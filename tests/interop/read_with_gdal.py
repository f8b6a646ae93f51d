# Reads the Zarr v2 arrays our library wrote with GDAL (Debian's gdal-bin and python3-gdal 3.6,
# installed by tools/setup), for tests/zarr/array/v2_interop.test.cpp:
#   python3 read_with_gdal.py DIR
# DIR/manifest.json lists the arrays of DIR/v2.zarr (path, dtype, shape, raw file: the values
# in C order, little-endian; where chunks are missing, the count of values written and the fill
# value's JSON, which this script reads itself). Three GDAL readers must agree with them:
#   gdalmdiminfo       lists every array with its shape and data type (JSON on stdout)
#   gdal_translate     copies each array (its classic raster view) to a GeoTIFF, read back here
#   the Python API     gdal.OpenEx(..., OF_MULTIDIM_RASTER), MDArray.ReadAsArray
# Any message on a tool's stderr, or any GDAL warning or error through the API, is a failure.
# Exits 0 when every array reads equal, else 1 after printing every difference; exits 3 when
# GDAL is not installed (the test then says SKIPPED, or fails under CI=true).
import json
import subprocess
import sys
from pathlib import Path

try:
    import numpy as np
    from osgeo import gdal
except ImportError as e:
    print("GDAL's Python bindings are missing: %s" % e)
    sys.exit(3)

gdal.UseExceptions()
messages = []
gdal.PushErrorHandler(lambda level, number, text: messages.append("GDAL %s %d: %s" % (
    {gdal.CE_Warning: "warning", gdal.CE_Failure: "error", gdal.CE_Fatal: "fatal"}.get(level, "debug"), number, text))
    if level >= gdal.CE_Warning else None)


def same(got, expected):
    """The same values, in the same type or one that holds every value of it exactly (GDAL 3.6
    reads bool as Byte, int8 as Int16 and float16 as Float32); NaN equals NaN."""
    if got.shape != expected.shape or not np.can_cast(expected.dtype, got.dtype, "safe"):
        return False
    widened = expected.astype(got.dtype)
    if got.dtype.kind == "c":
        return np.array_equal(got.real, widened.real, equal_nan=True) and np.array_equal(got.imag, widened.imag, equal_nan=True)
    return np.array_equal(got, widened, equal_nan=got.dtype.kind == "f")


def fill_of(value, dtype):
    """A fill value's JSON (a number, true or false, "NaN", "Infinity", "-Infinity", [re, im]) as
    NumPy holds it in `dtype`."""
    special = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
    if isinstance(value, list):
        return np.array(complex(special.get(value[0], value[0]), special.get(value[1], value[1])), dtype=dtype)
    return np.array(special.get(value, value), dtype=dtype)


def run(command):
    p = subprocess.run(command, capture_output=True, text=True)
    if p.returncode != 0 or p.stderr.strip():
        raise RuntimeError("%s: exit %d, stderr: %s" % (" ".join(command), p.returncode, p.stderr.strip()))
    return p.stdout


def main(directory):
    manifest = json.loads((directory / "manifest.json").read_text())
    store = str(directory / "v2.zarr")
    failures = []
    listing = json.loads(run(["gdalmdiminfo", store]))

    def listed(group, parts):
        if len(parts) == 1:
            return (group.get("arrays") or {}).get(parts[0])
        return listed((group.get("groups") or {}).get(parts[0]) or {}, parts[1:])

    root = gdal.OpenEx(store, gdal.OF_MULTIDIM_RASTER).GetRootGroup()
    tif = directory / "gdal_translate.tif"
    for case in manifest["cases"]:
        path = case["path"]
        expected = np.fromfile(directory / case["raw"], dtype=np.dtype(case["dtype"]).newbyteorder("<"))
        if "written" in case:  # missing chunks: the fill value's JSON as the test wrote it, read here
            expected[case["written"]:] = fill_of(case["fill"], expected.dtype)
        expected = expected.reshape(case["shape"])
        try:
            info = listed(listing, path.split("/"))
            if info is None:
                raise RuntimeError("gdalmdiminfo does not list it")
            if info.get("dimension_size", case["shape"]) != case["shape"]:
                raise RuntimeError("gdalmdiminfo lists the shape %s" % info.get("dimension_size"))
            array = root.OpenMDArrayFromFullname("/" + path)
            got = array.ReadAsArray()
            if not same(got, expected):
                raise RuntimeError("the Python API read %s %s, expected %s %s" % (got.dtype, got.ravel()[:8], expected.dtype,
                                                                                 expected.ravel()[:8]))
            if len(case["shape"]) == 2:
                run(["gdal_translate", "-q", "-of", "GTiff", 'ZARR:"%s":/%s' % (store, path), str(tif)])
                copied = gdal.Open(str(tif)).ReadAsArray()
                if not same(copied, expected):
                    raise RuntimeError("gdal_translate gave %s %s, expected %s" % (copied.dtype, copied.ravel()[:8],
                                                                                   expected.ravel()[:8]))
            if messages:
                raise RuntimeError("; ".join(messages))
        except Exception as e:  # every array is checked; all differences are printed
            failures.append("%s (%s): %s" % (path, case["dtype"], e))
        messages.clear()
    for f in failures:
        print(f)
    print("GDAL %s read %d of %d arrays equal, with no warning" % (gdal.__version__, len(manifest["cases"]) - len(failures),
                                                                  len(manifest["cases"])))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: read_with_gdal.py DIR")
    sys.exit(main(Path(sys.argv[1])))
