"""The C API from Python through the standard library's ctypes alone (no binding module):
arrays created, written and read through libzarr.so (ZARR_C_LIBRARY), compared with NumPy's own
conversions and with zarr-python 2 reading and writing the same stores. Run by CTest with
Debian's /usr/bin/python3 (tests/CMakeLists.txt); ZARR_TEST_S3_ENV names the RADOS Gateway's
env file."""
import ctypes
import json
import os
import shutil
import unittest

import numpy as np

lib = ctypes.CDLL(os.environ["ZARR_C_LIBRARY"])
u64p = ctypes.POINTER(ctypes.c_uint64)
handle = ctypes.c_void_p
lib.zarr_last_error.restype = ctypes.c_char_p
lib.zarr_version.restype = ctypes.c_char_p
lib.zarr_store_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(handle)]
lib.zarr_store_free.argtypes = [handle]
lib.zarr_array_free.argtypes = [handle]
lib.zarr_free.argtypes = [ctypes.c_void_p]
lib.zarr_array_create.argtypes = [handle, ctypes.c_char_p, ctypes.c_size_t, u64p, u64p, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(handle)]
lib.zarr_array_create_json.argtypes = [handle, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(handle)]
lib.zarr_array_open.argtypes = [handle, ctypes.c_char_p, ctypes.POINTER(handle)]
PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p)
lib.zarr_array_read.argtypes = [handle, u64p, u64p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, PROGRESS, ctypes.c_void_p]
lib.zarr_array_write.argtypes = [handle, u64p, u64p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, PROGRESS, ctypes.c_void_p]
lib.zarr_array_read_strings.argtypes = [handle, u64p, u64p, ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p)),
                                        ctypes.POINTER(ctypes.POINTER(ctypes.c_size_t)), ctypes.POINTER(ctypes.c_size_t)]
lib.zarr_array_write_strings.argtypes = [handle, u64p, u64p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t),
                                         ctypes.c_size_t]
lib.zarr_array_read_async.argtypes = [handle, u64p, u64p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                      ctypes.c_void_p, ctypes.POINTER(handle)]
lib.zarr_wait.argtypes = [handle]
lib.zarr_cancel.argtypes = [handle]
lib.zarr_operation_free.argtypes = [handle]

# zarr_dtype values (zarr.h) and the NumPy types with the same in-memory layout.
BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16 = 0, 3, 4, 5, 6, 9, 10
FLOAT16, FLOAT32, FLOAT64, COMPLEX64, COMPLEX128, STRING = 24, 25, 26, 27, 28, 44
NUMPY = {BOOL: np.bool_, INT8: np.int8, INT16: np.int16, INT32: np.int32, INT64: np.int64, UINT8: np.uint8,
         UINT16: np.uint16, FLOAT16: np.float16, FLOAT32: np.float32, FLOAT64: np.float64, COMPLEX64: np.complex64,
         COMPLEX128: np.complex128}
OK, INVALID_VALUE, OUT_OF_RANGE, CANCELLED = 0, 3, 4, 11
NO_PROGRESS = PROGRESS()


class ZarrError(Exception):
    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


def call(rc):
    if rc != OK:
        raise ZarrError(rc, lib.zarr_last_error().decode())


def u64(values):
    return (ctypes.c_uint64 * len(values))(*values)


class Array:
    def __init__(self, h):
        self.h = h

    def __del__(self):
        lib.zarr_array_free(self.h)

    def read(self, start, stop, dtype, progress=NO_PROGRESS):
        out = np.zeros([b - a for a, b in zip(start, stop)], dtype=NUMPY[dtype])
        call(lib.zarr_array_read(self.h, u64(start), u64(stop), dtype, out.ctypes.data, out.nbytes, progress, None))
        return out

    def write(self, start, stop, dtype, values, progress=NO_PROGRESS):
        values = np.ascontiguousarray(values, dtype=NUMPY[dtype])
        call(lib.zarr_array_write(self.h, u64(start), u64(stop), dtype, values.ctypes.data, values.nbytes, progress, None))


class Store:
    def __init__(self, url, options=None):
        self.h = handle()
        call(lib.zarr_store_open(url.encode(), None if options is None else json.dumps(options).encode(), ctypes.byref(self.h)))

    def __del__(self):
        lib.zarr_store_free(self.h)

    def create(self, path, shape, dtype, chunks=None, fill=None, codecs=None):
        a = handle()
        n = len(shape)
        fill_buffer = None if fill is None else np.array([fill], dtype=NUMPY[dtype])
        call(lib.zarr_array_create(self.h, path.encode(), n, u64(shape), None if chunks is None else u64(chunks), dtype, dtype,
                                   None if fill is None else fill_buffer.ctypes.data,
                                   None if codecs is None else json.dumps(codecs).encode(), None, 1, ctypes.byref(a)))
        return Array(a)

    def create_json(self, path, document):
        a = handle()
        call(lib.zarr_array_create_json(self.h, path.encode(), json.dumps(document).encode(), 1, ctypes.byref(a)))
        return Array(a)

    def open(self, path):
        a = handle()
        call(lib.zarr_array_open(self.h, path.encode(), ctypes.byref(a)))
        return Array(a)


def scratch(name):
    d = os.path.join(os.environ.get("ZARR_TEST_TMP", "/tmp/zarr-c-python"), name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


class CApiFromCtypes(unittest.TestCase):
    def test_integers_convert_exactly_as_numpy_does(self):
        rng = np.random.default_rng(26)
        data = rng.integers(-32768, 32767, size=(37, 23), dtype=np.int16)
        a = Store("memory:").create("i", data.shape, INT16, chunks=(8, 8), fill=-5)
        a.write((0, 0), data.shape, INT16, data)
        np.testing.assert_array_equal(a.read((0, 0), data.shape, FLOAT64), data.astype(np.float64))
        np.testing.assert_array_equal(a.read((3, 4), (9, 20), INT64), data[3:9, 4:20].astype(np.int64))
        # int8 holds none of the first row's values outside [-128, 127]: the first such element is named.
        row = data[0]
        first = int(np.flatnonzero((row < -128) | (row > 127))[0])
        with self.assertRaises(ZarrError) as e:
            a.read((0, 0), (1, 23), INT8)
        self.assertEqual(e.exception.code, OUT_OF_RANGE)
        self.assertIn(f"element {first}:", e.exception.message)
        self.assertIn(str(row[first]), e.exception.message)

    def test_floats_small_floats_complex_and_bool_match_numpy(self):
        s = Store("memory:")
        values = np.array([0.5, -1.75, 65504, 6.103515625e-05, -0.0, np.inf], dtype=np.float64)
        h = s.create("h", values.shape, FLOAT16, codecs=[{"name": "bytes", "configuration": {"endian": "big"}}])
        h.write((0,), values.shape, FLOAT64, values)
        np.testing.assert_array_equal(h.read((0,), values.shape, FLOAT16).view(np.uint16),
                                      values.astype(np.float16).view(np.uint16))
        with self.assertRaises(ZarrError) as e:
            h.write((0,), (1,), FLOAT64, [0.1])  # float16 has no 0.1: an error, never rounded
        self.assertEqual(e.exception.code, INVALID_VALUE)
        self.assertIn("element 0", e.exception.message)
        f = s.create("f", (100,), FLOAT32, chunks=(7,), fill=np.nan,
                     codecs=[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}])
        data = np.random.default_rng(1).standard_normal(60).astype(np.float32)
        f.write((20,), (80,), FLOAT32, data)
        back = f.read((0,), (100,), FLOAT64)
        self.assertTrue(np.isnan(back[:20]).all() and np.isnan(back[80:]).all())
        np.testing.assert_array_equal(back[20:80], data.astype(np.float64))
        c = s.create("c", (3,), COMPLEX128)
        z = np.array([1 + 2j, -0.5j, 3], dtype=np.complex128)
        c.write((0,), (3,), COMPLEX128, z)
        np.testing.assert_array_equal(c.read((0,), (3,), COMPLEX64), z.astype(np.complex64))
        b = s.create("b", (5,), BOOL)
        b.write((0,), (5,), UINT8, [1, 0, 0, 1, 1])
        np.testing.assert_array_equal(b.read((0,), (5,), BOOL), np.array([1, 0, 0, 1, 1], dtype=bool))

    def test_strings_round_trip(self):
        a = Store("memory:").create("s", (4,), STRING)
        words = ["zarr", "", "ÿ€😀", "x" * 1000]
        encoded = [w.encode() for w in words]
        call(lib.zarr_array_write_strings(a.h, u64([0]), u64([4]), (ctypes.c_char_p * 4)(*encoded),
                                          (ctypes.c_size_t * 4)(*[len(e) for e in encoded]), 4))
        values = ctypes.POINTER(ctypes.c_char_p)()
        lengths = ctypes.POINTER(ctypes.c_size_t)()
        count = ctypes.c_size_t()
        call(lib.zarr_array_read_strings(a.h, u64([0]), u64([4]), ctypes.byref(values), ctypes.byref(lengths), ctypes.byref(count)))
        self.assertEqual([values[i].decode() for i in range(count.value)], words)
        self.assertEqual([lengths[i] for i in range(count.value)], [len(e) for e in encoded])
        lib.zarr_free(values)
        lib.zarr_free(lengths)

    def test_a_progress_callback_cancels(self):
        a = Store("memory:").create("p", (1000,), INT32, chunks=(100,))
        seen = []

        def progress(done, total, _):
            seen.append((done, total))
            return 1 if done < 4 else 0

        callback = PROGRESS(progress)
        with self.assertRaises(ZarrError) as e:
            a.write((0,), (1000,), INT32, np.arange(1000), callback)
        self.assertEqual(e.exception.code, CANCELLED)
        self.assertIn((4, 10), seen)  # a chunk finishing on another thread meanwhile may still report
        self.assertLess(len(seen), 10)
        self.assertIn("cancelled after", e.exception.message)

    def test_asynchronous_reads_in_flight(self):
        a = Store("memory:").create("a", (64 * 32,), INT64, chunks=(32,))
        data = np.arange(64 * 32, dtype=np.int64) * -3
        a.write((0,), data.shape, INT64, data)
        outs = [np.zeros(32, dtype=np.float64) for _ in range(64)]
        ops = []
        for i, out in enumerate(outs):
            op = handle()
            call(lib.zarr_array_read_async(a.h, u64([i * 32]), u64([i * 32 + 32]), FLOAT64, out.ctypes.data, out.nbytes,
                                           None, None, ctypes.byref(op)))
            ops.append(op)
        for op in ops:
            call(lib.zarr_wait(op))
            lib.zarr_operation_free(op)
        np.testing.assert_array_equal(np.concatenate(outs), data.astype(np.float64))

    def test_zarr_python_2_reads_and_writes_the_same_arrays(self):
        import zarr  # zarr-python 2 (Debian's python3-zarr)
        d = scratch("v2")
        theirs = zarr.open(os.path.join(d, "theirs"), mode="w", shape=(30, 40), chunks=(7, 9), dtype="<f8", fill_value=-1)
        data = np.random.default_rng(7).standard_normal((30, 40))
        theirs[2:25, 5:] = data[2:25, 5:]
        ours = Store(os.path.join(d, "theirs")).open("")
        expected = np.full((30, 40), -1.0)
        expected[2:25, 5:] = data[2:25, 5:]
        np.testing.assert_array_equal(ours.read((0, 0), (30, 40), FLOAT64), expected)
        made = Store("file://" + os.path.join(d, "ours")).create_json(
            "", {"zarr_format": 2, "shape": [10], "chunks": [4], "dtype": "<i4", "compressor": {"id": "zlib", "level": 1},
                 "fill_value": 3, "filters": None, "order": "C"})
        made.write((2,), (9,), INT16, np.arange(7) * 100)
        expected = np.full(10, 3, dtype=np.int32)
        expected[2:9] = np.arange(7) * 100
        np.testing.assert_array_equal(zarr.open(os.path.join(d, "ours"), mode="r")[:], expected)

    def test_s3_through_the_rados_gateway(self):
        path = os.environ.get("ZARR_TEST_S3_ENV", "")
        if not os.path.exists(path):
            if os.environ.get("CI") == "true":
                self.fail("CI=true, yet the RADOS Gateway is not running")
            self.skipTest("the RADOS Gateway is not running")
        with open(path) as f:
            env = dict(line.strip().split("=", 1) for line in f if "=" in line)
        options = {"endpoint": env["S3_ENDPOINT"], "region": env["S3_REGION"], "access_key_id": env["S3_ACCESS_KEY"],
                   "secret_access_key": env["S3_SECRET_KEY"], "create_bucket": True}
        s = Store(f"s3://zarr-ctypes-{os.getpid()}/x.zarr", options)
        data = np.random.default_rng(3).integers(0, 255, size=(50, 60), dtype=np.uint8)
        a = s.create("t", data.shape, UINT8, chunks=(16, 16), codecs=[{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 5}}])
        a.write((0, 0), data.shape, UINT8, data)
        np.testing.assert_array_equal(Store(f"s3://zarr-ctypes-{os.getpid()}/x.zarr", options).open("t").read((0, 0), data.shape, INT16),
                                      data.astype(np.int16))


if __name__ == "__main__":
    unittest.main(verbosity=2)
