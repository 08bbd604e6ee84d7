#!/usr/bin/env python3
"""API coverage of an installed libblosc2 against upstream's public API.

usage: api-coverage.py REF_INCLUDE_DIR PREFIX MISSING_OUT [EXTRA_OUT]

The upstream public API is every function declared with BLOSC_EXPORT in the
reference headers (blosc2.h, b2nd.h, blosc2/*.h; 164 names for 3.3.5).  For
the library in PREFIX/lib it reports how many of those names its dynamic
symbol table defines (nm -D --defined-only) and how many its installed
headers declare, writes the names it does not export to MISSING_OUT, and the
exported names that are not upstream public functions to EXTRA_OUT.
"""

import glob
import os
import re
import subprocess
import sys


def header_files(incdir):
    files = [os.path.join(incdir, "blosc2.h"), os.path.join(incdir, "b2nd.h")]
    files += sorted(glob.glob(os.path.join(incdir, "blosc2", "*.h")))
    return [f for f in files if os.path.isfile(f)]


def strip_c(text):
    """Drop comments and preprocessor lines (with continuations)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"^[ \t]*#[^\n]*(?:\\\n[^\n]*)*", " ", text, flags=re.M)


def exported_decls(incdir):
    """Names of functions declared `BLOSC_EXPORT <type> name(...)`."""
    names = set()
    for path in header_files(incdir):
        with open(path, errors="replace") as f:
            text = strip_c(f.read())
        for m in re.finditer(r"\bBLOSC_EXPORT\b([^;{]*)", text):
            fn = re.search(r"([A-Za-z_]\w*)\s*\(", m.group(1))
            if fn:
                names.add(fn.group(1))
    return names


def declared_in(incdir, names):
    """Which of names the headers in incdir declare as functions (any style:
    generated headers need not use BLOSC_EXPORT)."""
    text = ""
    for path in header_files(incdir):
        with open(path, errors="replace") as f:
            text += strip_c(f.read()) + "\n"
    return {n for n in names if re.search(r"\b" + re.escape(n) + r"\s*\(", text)}


def dynamic_symbols(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if parts:
            syms.add(parts[-1].split("@")[0])
    return syms


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ref_inc, prefix, missing_out = sys.argv[1:4]
    extra_out = sys.argv[4] if len(sys.argv) > 4 else None
    upstream = exported_decls(ref_inc)
    if not upstream:
        print(f"api-coverage: no BLOSC_EXPORT declarations under {ref_inc}", file=sys.stderr)
        return 1
    lib = os.path.join(prefix, "lib", "libblosc2.so")
    syms = dynamic_symbols(lib)
    exported = upstream & syms
    declared = declared_in(os.path.join(prefix, "include"), upstream)
    missing = sorted(upstream - syms)
    extra = sorted(s for s in syms - upstream if re.match(r"(blosc|b2nd)", s))
    os.makedirs(os.path.dirname(os.path.abspath(missing_out)), exist_ok=True)
    with open(missing_out, "w") as f:
        f.write("".join(n + "\n" for n in missing))
    if extra_out:
        with open(extra_out, "w") as f:
            f.write("".join(n + "\n" for n in extra))
    n = len(upstream)
    print(f"exported {len(exported)}/{n} upstream public functions")
    print(f"declared in our headers: {len(declared)}/{n} upstream public functions")
    print(f"missing ({len(missing)}) listed in {missing_out}")
    if extra:
        print(f"exported beyond upstream's public API: {len(extra)} ({', '.join(extra[:8])}"
              f"{', ...' if len(extra) > 8 else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
