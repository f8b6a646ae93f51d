/* zarr.h: the C API of the zarr library (libzarr.so), for C, C++ built with any compiler, and
 * every language with a C foreign-function interface (Python's ctypes, Go's cgo, Rust, Julia,
 * Fortran's ISO_C_BINDING). Link with `pkg-config --cflags --libs zarr`.
 *
 * Conventions, for every function below:
 * - Every function that can fail returns an int: ZARR_OK (0) or a zarr_errc code. The message
 *   of the last failure on the calling thread (`<where>: expected <what>, got <actual>`) is
 *   zarr_last_error(). No C++ exception, abort or longjmp ever crosses this interface: running
 *   out of memory is ZARR_OUT_OF_MEMORY, anything unforeseen ZARR_INTERNAL.
 * - Handles (zarr_store, zarr_array, zarr_group, zarr_operation) are opaque. A function that
 *   makes one writes it to its `out` argument only on success; the caller owns it and releases
 *   it with its zarr_*_free function (NULL is accepted and does nothing). Handles are
 *   independent: an array keeps its store alive, so the store handle may be freed first.
 * - Text and JSON returned through `char**` is NUL-terminated UTF-8 in memory of the library:
 *   the caller owns it and releases it with zarr_free().
 * - Text passed in is NUL-terminated UTF-8 and only read during the call.
 * - Thread safety: every function may be called from any thread. One handle may be used by
 *   several threads at once for reads and writes of elements; functions that change a handle's
 *   metadata (zarr_array_set_attributes, zarr_group_set_attributes) must not run at the same
 *   time as any other call on that handle.
 * - Node paths: "" (or "/") is the root of the store, "a/b" (or "/a/b") a nested node.
 * - Regions are half-open boxes: for each dimension d of the array, elements
 *   start[d] <= i < stop[d], in C order (the last dimension varies fastest).
 */
#ifndef ZARR_H
#define ZARR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ZARR_API __attribute__((visibility("default")))
#else
#define ZARR_API
#endif

/* ---------------------------------------------------------------- errors */

/* The codes of zarr::errc (the same numbers), and two of the boundary. */
typedef enum zarr_errc {
  ZARR_OK = 0,
  ZARR_INVALID_METADATA = 1, /* zarr.json or a codec configuration is malformed */
  ZARR_UNSUPPORTED = 2,      /* a valid document names something this library does not have */
  ZARR_INVALID_VALUE = 3,    /* a value cannot be represented (in the array's type, as JSON, ...) */
  ZARR_OUT_OF_RANGE = 4,     /* a value is outside the range of its target type */
  ZARR_INVALID_KEY = 5,      /* a store key or node path is not allowed */
  ZARR_NOT_FOUND = 6,        /* a node or key does not exist */
  ZARR_ALREADY_EXISTS = 7,   /* a node exists where one is to be created */
  ZARR_CORRUPT_CHUNK = 8,    /* stored bytes cannot be decoded */
  ZARR_INVALID_ARGUMENT = 9, /* a caller passed something inconsistent (region, buffer size, NULL) */
  ZARR_IO = 10,              /* the operating system or a server refused an operation */
  ZARR_CANCELLED = 11,       /* a progress callback or zarr_cancel asked to stop */
  ZARR_OUT_OF_MEMORY = 100,  /* an allocation failed */
  ZARR_INTERNAL = 101        /* anything else (a bug: please report the message) */
} zarr_errc;

/* The message of the last failed call on this thread ("" when none failed yet). Valid until
 * the next call of this API on the same thread; never NULL. */
ZARR_API const char* zarr_last_error(void);
/* A short name of a code ("invalid value", "cancelled", ...); static storage, never NULL. */
ZARR_API const char* zarr_errc_name(int code);
/* The library's version ("0.1.0"); static storage. */
ZARR_API const char* zarr_version(void);
/* Releases text returned by this API. NULL does nothing. */
ZARR_API void zarr_free(void* text);

/* ---------------------------------------------------------------- data types */

/* The data types of elements in the caller's buffers (and of arrays). Each element has the
 * in-memory layout below, in the machine's byte order:
 *   ZARR_BOOL: one byte, 0 or 1;  the integers: int8_t ... uint64_t;
 *   ZARR_INT2, ZARR_INT4: one int8_t each; ZARR_UINT2, ZARR_UINT4: one uint8_t each;
 *   ZARR_FLOAT32, ZARR_FLOAT64: float, double;
 *   ZARR_FLOAT16, ZARR_BFLOAT16: the 16-bit pattern in a uint16_t;
 *   the float4, float6 and float8 types: the bit pattern in the low bits of a uint8_t;
 *   ZARR_COMPLEX64, ZARR_COMPLEX128: two floats or doubles (real, imaginary), as C's complex;
 *   ZARR_COMPLEX_<small float>: two such patterns (real, imaginary);
 *   ZARR_DATETIME64, ZARR_TIMEDELTA64: an int64_t count of the array's time unit.
 * ZARR_STRING (UTF-8 text) and ZARR_BYTES (byte strings) have variable length: their elements
 * go through zarr_array_read_strings / zarr_array_write_strings. ZARR_OTHER stands for the types
 * that take a configuration (raw bits, fixed_length_utf32, struct), reached through the C++ API
 * or as raw bytes (ZARR_OTHER in a read or write: the array's own in-memory layout). */
typedef enum zarr_dtype {
  ZARR_BOOL = 0,
  ZARR_INT2 = 1, ZARR_INT4 = 2, ZARR_INT8 = 3, ZARR_INT16 = 4, ZARR_INT32 = 5, ZARR_INT64 = 6,
  ZARR_UINT2 = 7, ZARR_UINT4 = 8, ZARR_UINT8 = 9, ZARR_UINT16 = 10, ZARR_UINT32 = 11, ZARR_UINT64 = 12,
  ZARR_FLOAT4_E2M1FN = 13, ZARR_FLOAT6_E2M3FN = 14, ZARR_FLOAT6_E3M2FN = 15,
  ZARR_FLOAT8_E3M4 = 16, ZARR_FLOAT8_E4M3 = 17, ZARR_FLOAT8_E4M3B11FNUZ = 18, ZARR_FLOAT8_E4M3FNUZ = 19,
  ZARR_FLOAT8_E5M2 = 20, ZARR_FLOAT8_E5M2FNUZ = 21, ZARR_FLOAT8_E8M0FNU = 22,
  ZARR_BFLOAT16 = 23, ZARR_FLOAT16 = 24, ZARR_FLOAT32 = 25, ZARR_FLOAT64 = 26,
  ZARR_COMPLEX64 = 27, ZARR_COMPLEX128 = 28,
  ZARR_DATETIME64 = 29, ZARR_TIMEDELTA64 = 30,
  ZARR_COMPLEX_BFLOAT16 = 31, ZARR_COMPLEX_FLOAT16 = 32, ZARR_COMPLEX_FLOAT4_E2M1FN = 33,
  ZARR_COMPLEX_FLOAT6_E2M3FN = 34, ZARR_COMPLEX_FLOAT6_E3M2FN = 35, ZARR_COMPLEX_FLOAT8_E3M4 = 36,
  ZARR_COMPLEX_FLOAT8_E4M3 = 37, ZARR_COMPLEX_FLOAT8_E4M3B11FNUZ = 38, ZARR_COMPLEX_FLOAT8_E4M3FNUZ = 39,
  ZARR_COMPLEX_FLOAT8_E5M2 = 40, ZARR_COMPLEX_FLOAT8_E5M2FNUZ = 41, ZARR_COMPLEX_FLOAT8_E8M0FNU = 42,
  ZARR_FLOAT8_E4M3FN = 43,
  ZARR_STRING = 44, ZARR_BYTES = 45,
  ZARR_OTHER = 255
} zarr_dtype;

/* Bytes per element of a type in a caller's buffer (0 for ZARR_STRING, ZARR_BYTES, ZARR_OTHER
 * and unknown values). */
ZARR_API size_t zarr_dtype_size(int dtype);
/* The Zarr name of a type ("float32", "complex_float16", "string"); NULL for unknown values. */
ZARR_API const char* zarr_dtype_name(int dtype);

/* ---------------------------------------------------------------- callbacks */

/* Called after each chunk of a read or write with the chunks done and their total, one call at
 * a time, from whichever thread finished the chunk. Returning 0 cancels the operation, which then
 * fails with ZARR_CANCELLED (chunks already written stay written); any other value continues. */
typedef int (*zarr_progress_fn)(uint64_t done, uint64_t total, void* user_data);

/* ---------------------------------------------------------------- stores */

typedef struct zarr_store zarr_store;

/* Opens a store by URL:
 *   a directory path, or "file:///abs/path": a directory on disk (created when missing);
 *   "s3://bucket" or "s3://bucket/prefix": an S3 bucket (keys below the prefix);
 *   "http://..." or "https://...": any static web server (read only);
 *   "memory:": a new, empty store in memory (its data lives as long as a handle to it does).
 * `options_json` (NULL or "" for none) is a JSON object; an unknown member, or one that does not
 * belong to the URL's kind, is ZARR_INVALID_ARGUMENT. Members:
 *   directory: "create" (bool, default true), "durable" (bool, default false: fsync each write);
 *   s3: "endpoint" ("http://127.0.0.1:7480"), "region", "access_key_id", "secret_access_key",
 *       "session_token" (strings: each one left out comes from AWS_ENDPOINT_URL, AWS_REGION or
 *       AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; without
 *       credentials requests go unsigned), "virtual_hosted" (bool), "max_in_flight" (requests
 *       under way at once, default 64), "create_bucket" (bool: create the bucket now);
 *   http(s): "max_in_flight".
 * Nothing is sent to a server here except for "create_bucket". */
ZARR_API int zarr_store_open(const char* url, const char* options_json, zarr_store** out);
ZARR_API void zarr_store_free(zarr_store* store);

/* Writes the consolidated metadata of the group at `group_path` (every node's document below it
 * in one key: `.zmetadata` for Zarr v2, `consolidated_metadata` in zarr.json for v3). `nodes`
 * (may be NULL) receives how many nodes it holds. Later metadata writes through this library
 * remove it from the groups above the node they change: consolidate again afterwards. */
ZARR_API int zarr_consolidate_metadata(zarr_store* store, const char* group_path, size_t* nodes);
/* A store that answers every metadata read and listing below the group at `group_path` from its
 * consolidated metadata (read once, here); chunks come from `store`. ZARR_NOT_FOUND when the
 * group has none. The new handle is independent of `store`. */
ZARR_API int zarr_store_open_consolidated(zarr_store* store, const char* group_path, zarr_store** out);

/* ---------------------------------------------------------------- groups */

typedef struct zarr_group zarr_group;

/* Creates a group at `path` (and missing parent groups). `attributes_json`: NULL or a JSON
 * object. `zarr_format`: 3 (zarr.json) or 2 (.zgroup). ZARR_ALREADY_EXISTS when a node is
 * there, unless `overwrite` is non-zero. */
ZARR_API int zarr_group_create(zarr_store* store, const char* path, const char* attributes_json, int overwrite,
                               int zarr_format, zarr_group** out);
ZARR_API int zarr_group_open(zarr_store* store, const char* path, zarr_group** out);
ZARR_API void zarr_group_free(zarr_group* group);
/* The names of the group's children (arrays and groups), sorted, as a JSON array of strings
 * (`["a","b"]`). Free *out with zarr_free. ZARR_UNSUPPORTED for a store that cannot list (HTTP)
 * unless it was opened consolidated. */
ZARR_API int zarr_group_children(const zarr_group* group, char** out);
/* The attributes as a JSON object's text. Free *out with zarr_free. */
ZARR_API int zarr_group_attributes(const zarr_group* group, char** out);
/* Replaces the attributes (a JSON object) and rewrites the group's metadata. */
ZARR_API int zarr_group_set_attributes(zarr_group* group, const char* attributes_json);

/* ---------------------------------------------------------------- arrays */

typedef struct zarr_array zarr_array;

/* Creates an array from its metadata document: a zarr.json text (Zarr v3), or a `.zarray` text
 * (a JSON object with "zarr_format": 2). Everything is validated (codec chain resolved, fill
 * value checked) before anything is written. Missing parent groups are created. */
ZARR_API int zarr_array_create_json(zarr_store* store, const char* path, const char* metadata_json, int overwrite,
                                    zarr_array** out);
/* Creates a Zarr v3 array from a typed description:
 *   `ndim` dimensions of `shape`; `chunk_shape`: NULL for one chunk of the whole array;
 *   `dtype`: a zarr_dtype (not ZARR_DATETIME64/ZARR_TIMEDELTA64/ZARR_OTHER, which need a
 *   configuration: use zarr_array_create_json);
 *   `fill_value`: NULL for the default (zero, false, "" for strings), else one element of type
 *   `fill_type` (a zarr_dtype; for ZARR_STRING and ZARR_BYTES a NUL-terminated char*), converted
 *   exactly to `dtype` (0.5 as a float64 fill for an int32 array is ZARR_INVALID_VALUE);
 *   `codecs_json`: NULL for the default chain ([bytes], or [vlen-utf8] / [vlen-bytes]), else the
 *   whole chain as zarr.json's "codecs" member, a JSON array
 *   (`[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":3}}]`);
 *   `attributes_json`: NULL or a JSON object. */
ZARR_API int zarr_array_create(zarr_store* store, const char* path, size_t ndim, const uint64_t* shape,
                               const uint64_t* chunk_shape, int dtype, int fill_type, const void* fill_value,
                               const char* codecs_json, const char* attributes_json, int overwrite, zarr_array** out);
/* Opens the array at `path` (its zarr.json, else its Zarr v2 .zarray and .zattrs). */
ZARR_API int zarr_array_open(zarr_store* store, const char* path, zarr_array** out);
ZARR_API void zarr_array_free(zarr_array* array);

/* The number of dimensions. */
ZARR_API size_t zarr_array_ndim(const zarr_array* array);
/* Writes the shape to shape[0 .. ndim). */
ZARR_API void zarr_array_shape(const zarr_array* array, uint64_t* shape);
/* The array's data type as a zarr_dtype (ZARR_OTHER for raw bits, fixed_length_utf32, struct). */
ZARR_API int zarr_array_dtype(const zarr_array* array);
/* The metadata document (zarr.json, or .zarray for Zarr v2) as text. Free *out with zarr_free. */
ZARR_API int zarr_array_metadata(const zarr_array* array, char** out);
/* The attributes as a JSON object's text. Free *out with zarr_free. */
ZARR_API int zarr_array_attributes(const zarr_array* array, char** out);
/* Replaces the attributes (a JSON object) and rewrites the metadata. */
ZARR_API int zarr_array_set_attributes(zarr_array* array, const char* attributes_json);

/* Reads the region [start, stop) into `buffer` as elements of `dtype` (C order, the layouts of
 * zarr_dtype), `buffer_size` bytes: exactly the region's elements times zarr_dtype_size(dtype)
 * (else ZARR_INVALID_ARGUMENT). When `dtype` is the array's type the bytes are copied as they
 * are; otherwise every value is converted exactly: one that has no exact counterpart in `dtype`
 * fails (ZARR_INVALID_VALUE, ZARR_OUT_OF_RANGE) with a message naming the array, the element
 * (its index in C order within the region) and the value:
 *   `array "/t", element 3: expected a value that int8 holds exactly, got 3.5 (float64)`.
 * Missing chunks read as the fill value. `progress` may be NULL. */
ZARR_API int zarr_array_read(const zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype,
                             void* buffer, size_t buffer_size, zarr_progress_fn progress, void* user_data);
/* Writes `buffer` (as zarr_array_read describes) into the region [start, stop). With another
 * type than the array's, every value is converted exactly before anything is stored, with the
 * errors above. Chunks that hold only the fill value are not stored. */
ZARR_API int zarr_array_write(zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype,
                              const void* buffer, size_t buffer_size, zarr_progress_fn progress, void* user_data);

/* The elements of a ZARR_STRING or ZARR_BYTES array in [start, stop), C order. `*values`
 * receives an array of `count` pointers (count = the region's elements), `*lengths` (may be
 * NULL) their lengths in bytes; each element is also NUL-terminated (a bytes element may hold
 * NULs: use its length). All of it is one allocation: free *values with zarr_free (and *lengths
 * with zarr_free). */
ZARR_API int zarr_array_read_strings(const zarr_array* array, const uint64_t* start, const uint64_t* stop,
                                     char*** values, size_t** lengths, size_t* count);
/* Writes `count` elements (the region's) of a ZARR_STRING or ZARR_BYTES array. `lengths` NULL:
 * each value is NUL-terminated; else value i has lengths[i] bytes. Text that is not UTF-8 is
 * ZARR_INVALID_ARGUMENT naming its element, before anything is stored. */
ZARR_API int zarr_array_write_strings(zarr_array* array, const uint64_t* start, const uint64_t* stop,
                                      const char* const* values, const size_t* lengths, size_t count);

/* ---------------------------------------------------------------- asynchronous reads and writes */

/* An operation under way: started by zarr_array_read_async or zarr_array_write_async, run by
 * the library's pool of threads (zarr_set_async_threads), so that one thread can keep many
 * reads and writes in flight. */
typedef struct zarr_operation zarr_operation;

/* Called once when an operation ends, on a thread of the pool: `code` is its result (ZARR_OK,
 * ZARR_CANCELLED, ...), `message` its error message ("" on success; valid during the call). The
 * callback must not block for long; it may call zarr_operation_free on `operation`. */
typedef void (*zarr_completion_fn)(zarr_operation* operation, int code, const char* message, void* user_data);

/* Starts zarr_array_read (same arguments and checks) and returns at once. `buffer` must stay
 * valid until the operation ends. `completion` may be NULL (then use zarr_wait). The array
 * handle may be freed at once: the operation holds what it needs. *operation receives the
 * handle (free it with zarr_operation_free). An error in the arguments found before starting
 * is returned here, and then no operation exists. */
ZARR_API int zarr_array_read_async(const zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype,
                                   void* buffer, size_t buffer_size, zarr_completion_fn completion, void* user_data,
                                   zarr_operation** operation);
/* Starts zarr_array_write; as zarr_array_read_async. `buffer` must stay valid until it ends. */
ZARR_API int zarr_array_write_async(zarr_array* array, const uint64_t* start, const uint64_t* stop, int dtype,
                                    const void* buffer, size_t buffer_size, zarr_completion_fn completion,
                                    void* user_data, zarr_operation** operation);
/* Waits until the operation has ended (its completion callback has returned) and returns its
 * result; on failure zarr_last_error() is its message. May be called many times, from any thread
 * (not from the operation's own completion callback). */
ZARR_API int zarr_wait(zarr_operation* operation);
/* 1 when the operation has ended, 0 while it runs (never blocks). */
ZARR_API int zarr_operation_done(const zarr_operation* operation);
/* Asks the operation to stop: one that has not started ends with ZARR_CANCELLED without touching
 * the store; one under way stops after its current chunk (ZARR_CANCELLED; chunks already
 * written stay written); one that has ended keeps its result. Never blocks. */
ZARR_API void zarr_cancel(zarr_operation* operation);
/* Releases the handle. An operation still running goes on to its end (its buffer must stay
 * valid until then, and its completion callback is still called). NULL does nothing. */
ZARR_API void zarr_operation_free(zarr_operation* operation);

/* ---------------------------------------------------------------- threads */

/* The number of threads that encode and decode the chunks of one read or write (0: one per
 * core, the default). Process-wide. */
ZARR_API void zarr_set_threads(size_t threads);
/* The most asynchronous operations that run at once (default 64; 0 restores it); more wait in
 * order. Process-wide. */
ZARR_API void zarr_set_async_threads(size_t threads);

#ifdef __cplusplus
}
#endif

#endif /* ZARR_H */
