#!/usr/bin/env python3
"""Expected values for the numcodecs.fletcher32 and numcodecs.jenkins_lookup3 tests
(tests/zarr/codec/bytes_to_bytes/checksum32.test.cpp), computed here from the algorithms' definitions in plain
Python, apart from the C++ code they check (numcodecs 0.11, Debian's, has neither codec):

- fletcher32: HDF5's H5_checksum_fletcher32 (which netCDF-C and numcodecs >= 0.12 use): 16-bit
  words read big-endian from the bytes, a last odd byte as the high byte of a word; two sums
  folded modulo 65535 (end-around carry) and returned as sum2 << 16 | sum1.
- jenkins_lookup3: Bob Jenkins' lookup3.c `hashlittle` (HDF5's H5_checksum_lookup3): 12-byte
  blocks read little-endian into a, b, c, mix(); the tail (1 to 12 bytes) added, final().
Both codecs append the checksum as 4 bytes little-endian.

  python3 tools/numcodecs_checksums.py     # prints one line per case: input (hex), checksum
"""

M = 0xFFFFFFFF


def fletcher32_textbook(data: bytes) -> int:
    """The same sums taken modulo 65535 at every step (they differ from the C code's folding
    only where a sum is a multiple of 65535: 0 here, 0xFFFF there)."""
    sum1 = sum2 = 0
    words = [(data[i] << 8) | data[i + 1] for i in range(0, len(data) - 1, 2)]
    if len(data) % 2:
        words.append(data[-1] << 8)
    for w in words:
        sum1 = (sum1 + w) % 0xFFFF
        sum2 = (sum2 + sum1) % 0xFFFF
    return (sum2 << 16) | sum1


def fletcher32(data: bytes) -> int:
    """HDF5's arithmetic step by step: blocks of 360 words, each sum folded after each block."""
    sum1 = sum2 = 0
    n = len(data) // 2
    i = 0
    while n:
        t = min(n, 360)
        n -= t
        for _ in range(t):
            sum1 = (sum1 + ((data[i] << 8) | data[i + 1])) & M
            sum2 = (sum2 + sum1) & M
            i += 2
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    if len(data) % 2:
        sum1 = (sum1 + (data[i] << 8)) & M
        sum2 = (sum2 + sum1) & M
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
    sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    return ((sum2 << 16) | sum1) & M


def rot(x, k):
    return ((x << k) | (x >> (32 - k))) & M


def mix(a, b, c):
    a = (a - c) & M; a ^= rot(c, 4); c = (c + b) & M
    b = (b - a) & M; b ^= rot(a, 6); a = (a + c) & M
    c = (c - b) & M; c ^= rot(b, 8); b = (b + a) & M
    a = (a - c) & M; a ^= rot(c, 16); c = (c + b) & M
    b = (b - a) & M; b ^= rot(a, 19); a = (a + c) & M
    c = (c - b) & M; c ^= rot(b, 4); b = (b + a) & M
    return a, b, c


def final(a, b, c):
    c ^= b; c = (c - rot(b, 14)) & M
    a ^= c; a = (a - rot(c, 11)) & M
    b ^= a; b = (b - rot(a, 25)) & M
    c ^= b; c = (c - rot(b, 16)) & M
    a ^= c; a = (a - rot(c, 4)) & M
    b ^= a; b = (b - rot(a, 14)) & M
    c ^= b; c = (c - rot(b, 24)) & M
    return a, b, c


def jenkins_lookup3(data: bytes, initval: int = 0) -> int:
    a = b = c = (0xDEADBEEF + len(data) + initval) & M
    if not data:
        return c
    k = data
    while len(k) > 12:
        a = (a + int.from_bytes(k[0:4], "little")) & M
        b = (b + int.from_bytes(k[4:8], "little")) & M
        c = (c + int.from_bytes(k[8:12], "little")) & M
        a, b, c = mix(a, b, c)
        k = k[12:]
    tail = k + bytes(12 - len(k))
    a = (a + int.from_bytes(tail[0:4], "little")) & M
    b = (b + int.from_bytes(tail[4:8], "little")) & M
    c = (c + int.from_bytes(tail[8:12], "little")) & M
    a, b, c = final(a, b, c)
    return c


CASES = [b"", b"a", b"abcdef", b"abcdefg", b"Four score and seven years ago", bytes(range(256)) * 3 + b"\xff"]

if __name__ == "__main__":
    # Bob Jenkins' own values (lookup3.c, driver5) check this code first.
    assert jenkins_lookup3(b"", 0) == 0xDEADBEEF
    assert jenkins_lookup3(b"", 0xDEADBEEF) == 0xBD5B7DDE
    assert jenkins_lookup3(b"Four score and seven years ago", 0) == 0x17770551
    assert jenkins_lookup3(b"Four score and seven years ago", 1) == 0xCD628161
    for data in CASES:
        assert fletcher32(data) == fletcher32_textbook(data)
    for data in CASES:
        print("fletcher32      %-12s %s 0x%08X" % (len(data), data[:16].hex(), fletcher32(data)))
    for data in CASES:
        for initval in (0, 1, 0x12345678):
            print("jenkins_lookup3 %-12s %s initval 0x%08X: 0x%08X" % (len(data), data[:16].hex(), initval,
                                                                      jenkins_lookup3(data, initval)))
