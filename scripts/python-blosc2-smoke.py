"""python-blosc2 on our library: scripts/python-blosc2-smoke.py LIB

Run by scripts/python-blosc2.sh with the venv's python, in a scratch
directory, LIB being the real path of PREFIX/lib/libblosc2.so.9.  Exits
non-zero (with the reason) unless python-blosc2 runs on LIB and its data
round-trips: chunks of NumPy arrays, a super-chunk in a frame file reopened
from disk, and a b2nd array saved and reopened.
"""

import ctypes
import os
import sys

import numpy as np

import blosc2

lib = sys.argv[1]


def fail(msg):
    print(f"python-blosc2: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def mapped_libblosc2():
    """Every file named libblosc2* mapped into this process."""
    found = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and os.path.basename(fields[5]).startswith("libblosc2"):
                found.add(os.path.realpath(fields[5]))
    return found


# A bundled copy would be linked into blosc2_ext itself and map no
# libblosc2 file at all; another libblosc2.so.9 would map another path.
maps = mapped_libblosc2()
if maps != {lib}:
    fail(f"libblosc2 files mapped after import blosc2: {sorted(maps) or 'none'}; expected only {lib}")
# Already loaded, so this is the same handle the extension uses; the
# blosc2rs_ functions exist only in this library, not in C-Blosc2.
c = ctypes.CDLL(lib)
c.blosc2_get_version_string.restype = ctypes.c_char_p
if not hasattr(c, "blosc2rs_verify_frame"):
    fail(f"{lib} is not blosc2-rs's library (no blosc2rs_verify_frame)")
print(
    f"python-blosc2: blosc2 {blosc2.__version__} from {os.path.dirname(blosc2.__file__)}; "
    f"libblosc2 mapped: {lib} (blosc2-rs, C version {c.blosc2_get_version_string().decode()}; "
    f"blosc2.blosclib_version, from the headers at build time: {blosc2.blosclib_version})"
)

# Chunks: every codec python-blosc2 offers for compress2, with shuffle.
data = np.linspace(0, 1000, 1_000_000, dtype=np.float64)
sizes = []
for codec in (blosc2.Codec.BLOSCLZ, blosc2.Codec.LZ4, blosc2.Codec.LZ4HC, blosc2.Codec.ZLIB, blosc2.Codec.ZSTD):
    chunk = blosc2.compress2(data, codec=codec, clevel=5, filters=[blosc2.Filter.SHUFFLE], typesize=8)
    back = np.frombuffer(blosc2.decompress2(chunk), dtype=np.float64)
    if not np.array_equal(back, data):
        fail(f"compress2/decompress2 with {codec.name} does not round-trip")
    sizes.append(f"{codec.name.lower()} {len(chunk)}")
packed = blosc2.pack_tensor(data)
if not np.array_equal(blosc2.unpack_tensor(packed), data):
    fail("pack_tensor/unpack_tensor does not round-trip")
print(f"python-blosc2: chunks of {data.nbytes} bytes round-trip: {', '.join(sizes)} bytes")

# A super-chunk in a frame file, appended to, closed and reopened.
ints = np.arange(2_000_000, dtype=np.int32)
cparams = blosc2.CParams(codec=blosc2.Codec.ZSTD, clevel=3, typesize=4, filters=[blosc2.Filter.BITSHUFFLE])
sc = blosc2.SChunk(chunksize=400_000 * 4, urlpath="smoke.b2frame", mode="w", cparams=cparams)
for start in range(0, ints.size, 400_000):
    sc.append_data(ints[start : start + 400_000])
sc.vlmeta["note"] = "written through blosc2-rs"
del sc
sc = blosc2.open("smoke.b2frame")
back = np.frombuffer(sc[:], dtype=np.int32)
if not np.array_equal(back, ints):
    fail("the super-chunk read back from smoke.b2frame differs")
if sc.nchunks != 5 or sc.vlmeta["note"] != "written through blosc2-rs":
    fail(f"smoke.b2frame reopened with {sc.nchunks} chunks, vlmeta {sc.vlmeta['note']!r}")
print(
    f"python-blosc2: SChunk in smoke.b2frame: {sc.nchunks} chunks, {sc.nbytes} -> {sc.cbytes} bytes, "
    f"{os.path.getsize('smoke.b2frame')} on disk, reopened and equal"
)

# A b2nd array saved to disk and reopened, with a slice and a write.
grid = np.arange(300 * 200 * 50, dtype=np.float32).reshape(300, 200, 50)
a = blosc2.asarray(grid, chunks=(100, 100, 25), blocks=(20, 50, 25), urlpath="smoke.b2nd", mode="w")
a[10:20, 5:7, :] = -1.0
grid[10:20, 5:7, :] = -1.0
del a
a = blosc2.open("smoke.b2nd")
if a.shape != grid.shape or a.dtype != grid.dtype or a.chunks != (100, 100, 25):
    fail(f"smoke.b2nd reopened as shape {a.shape}, dtype {a.dtype}, chunks {a.chunks}")
if not np.array_equal(a[:], grid) or not np.array_equal(a[42:250:7, 3, ::3], grid[42:250:7, 3, ::3]):
    fail("smoke.b2nd read back differs")
print(
    f"python-blosc2: b2nd array smoke.b2nd: shape {a.shape}, chunks {a.chunks}, blocks {a.blocks}, "
    f"{a.schunk.nbytes} -> {a.schunk.cbytes} bytes, reopened and equal"
)

if mapped_libblosc2() != {lib}:
    fail(f"libblosc2 files mapped at the end: {sorted(mapped_libblosc2())}")
