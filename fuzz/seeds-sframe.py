#!/usr/bin/env python3
"""Seeds for the `sframe` target: the sparse frame directories of the shared
interop corpora, each packed into the target's container format
([nfiles: u8], then per file [len: u16 le][bytes]; file 0 is the index,
file i > 0 chunk file i - 1). Files over 64 KiB are cut, as the format
allows; directories with more than 254 chunk files keep the first 254.

    python3 fuzz/seeds-sframe.py ../shared/interop fuzz/corpus/sframe
"""
import os
import struct
import sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
n = 0
for ref in sorted(os.listdir(src)):
    for sub in ("frames", "arrays"):
        d = os.path.join(src, ref, sub)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not os.path.isdir(path):
                continue
            files = [open(os.path.join(path, "chunks.b2frame"), "rb").read()]
            # chunk files are numbered as written: after updates and deletes
            # some numbers are missing, which become empty files here
            ids = [int(f[:8], 16) for f in os.listdir(path) if f.endswith(".chunk")]
            for i in range(min(max(ids, default=-1) + 1, 254)):
                p = os.path.join(path, "%08X.chunk" % i)
                files.append(open(p, "rb").read() if os.path.exists(p) else b"")
            blob = bytes([len(files)])
            for f in files:
                f = f[:65535]
                blob += struct.pack("<H", len(f)) + f
            if len(blob) > 40_000 or ref != "ref-3.3.5":
                continue
            with open(os.path.join(out, "%s-%s" % (ref, name)), "wb") as fh:
                fh.write(blob)
            n += 1
print("%d seeds in %s" % (n, out))
