#!/usr/bin/env python3
"""Stubs for public functions a libblosc2 under test does not define yet.

usage: missing-stubs.py NAMES_FILE OUT_C [REF_INCLUDE_DIR]

scripts/interop.sh links the shared interop tools against our library while
it is still incomplete.  Each missing function becomes a stub that prints
"<name>: not implemented by the library under test" and then fails the way
upstream reports failure, according to its return type in the reference
headers: integers return -1 (BLOSC2_ERROR_FAILURE), pointers NULL, void
returns, doubles -1.0.  Functions returning a struct by value, or not found
in the reference headers, abort.  So a missing function costs the corpus
entries that need it, not the whole run.
"""

import os
import re
import sys

# Importing the sibling script must not leave a __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

coverage = import_module("api-coverage")

INTEGER = {"int", "int64_t", "int32_t", "int16_t", "int8_t", "uint8_t", "uint16_t",
           "uint32_t", "uint64_t", "size_t", "long", "unsigned", "unsigned int", "bool"}


def return_types(incdir):
    types = {}
    for path in coverage.header_files(incdir):
        with open(path, errors="replace") as f:
            text = coverage.strip_c(f.read())
        for m in re.finditer(r"\bBLOSC_EXPORT\b([^;{]*)", text):
            decl = " ".join(m.group(1).split())
            fn = re.search(r"^(.*?)([A-Za-z_]\w*)\s*\(", decl)
            if fn:
                types[fn.group(2)] = fn.group(1).strip()
    return types


def stub(name, ret):
    call = f'missing("{name}");'
    if ret is None or not ret:
        return f"void {name}(void) {{ {call} abort(); }}"
    bare = re.sub(r"\b(const|volatile|static|inline)\b", "", ret).strip()
    if "*" in bare:
        return f"void *{name}(void) {{ {call} return NULL; }}"
    if bare == "void":
        return f"void {name}(void) {{ {call} }}"
    if bare in ("double", "float"):
        return f"{bare} {name}(void) {{ {call} return -1.0; }}"
    if bare == "bool":
        return f"int {name}(void) {{ {call} return 0; }}"
    if bare in INTEGER:
        return f"long long {name}(void) {{ {call} return -1; }}"
    # A struct returned by value: no safe way to fake it.
    return f"void {name}(void) {{ {call} abort(); }}"


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        names = [line.strip() for line in f if line.strip()]
    types = return_types(sys.argv[3]) if len(sys.argv) > 3 else {}
    with open(sys.argv[2], "w") as out:
        out.write("#include <stdio.h>\n#include <stdlib.h>\n")
        out.write("static void missing(const char *f) {\n"
                  '  fprintf(stderr, "%s: not implemented by the library under test\\n", f);\n'
                  "}\n")
        for name in names:
            out.write(stub(name, types.get(name)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
