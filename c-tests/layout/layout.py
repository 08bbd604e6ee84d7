#!/usr/bin/env python3
"""Compare the public C API of two include directories: the reference C-Blosc2
headers (the truth) and ours.

  layout.py REF_INCLUDE OUR_INCLUDE WORKDIR

* Layout: every struct defined in the reference headers is found by parsing
  their preprocessed text; a probe compiled against the REFERENCE headers
  prints sizeof/_Alignof of each struct and offsetof/sizeof of each field; from
  those numbers a file of _Static_assert()s is generated and compiled against
  OUR headers, as C11 and as C++11. The numbers come from the same run, so they
  cannot drift from the reference.
* Constants: every enumerator and object-like #define of the reference headers
  that is an integer or string constant there (decided by compiling it) must
  have the same value in ours; other object-like macros must expand to the
  same text (BLOSC1_COMPAT aliases, include guards).
* Prototypes: each function our headers declare is redeclared with the
  reference prototype after our headers; C rejects incompatible ones.
* Blosc1 coexistence: a stand-in blosc.h defining the names upstream keeps
  under `#ifndef BLOSC_H` can be included before our headers.

Prints one summary line and exits non-zero on any difference.
"""

import os
import re
import subprocess
import sys

HEADERS = [
    "blosc2.h",
    "b2nd.h",
    "blosc2/blosc2-stdio.h",
    "blosc2/codecs-registry.h",
    "blosc2/filters-registry.h",
    "blosc2/tuners-registry.h",
]
CC = os.environ.get("CC", "gcc")
CXX = os.environ.get("CXX", "g++")


def includes():
    return "".join(f'#include "{h}"\n' for h in HEADERS)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def reference_text(ref, work):
    """Preprocessed text of the reference headers, without system headers."""
    src = os.path.join(work, "all.c")
    with open(src, "w") as f:
        f.write(includes())
    res = run([CC, "-E", "-I", ref, src])
    if res.returncode != 0:
        sys.exit(f"layout: cannot preprocess the reference headers:\n{res.stderr}")
    ref = os.path.realpath(ref)
    keep, out = False, []
    for line in res.stdout.splitlines():
        m = re.match(r'# \d+ "([^"]*)"', line)
        if m:
            keep = os.path.realpath(m.group(1)).startswith(ref + os.sep)
        elif keep:
            out.append(line)
    return "\n".join(out)


def parse_structs(text):
    """[(C type name, [field names])] of every struct with a body."""
    structs = []
    pattern = r"(typedef\s+)?struct\s*(\w+)?\s*\{([^{}]*)\}\s*(\w+)?\s*;"
    for m in re.finditer(pattern, text):
        typedef, tag, body, alias = m.groups()
        name = alias if typedef and alias else f"struct {tag}"
        fields = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if fp:
                fields.append(fp.group(1))
                continue
            decl = re.sub(r"(\s*\[[^\]]*\])+$", "", decl)
            fields.append(re.findall(r"\w+", decl)[-1])
        structs.append((name, fields))
    return structs


def constant_names(ref, text):
    """Enumerators (from the preprocessed text) and object-like macros (from the files)."""
    names = []
    for body in re.findall(r"\benum\s*\w*\s*\{([^{}]*)\}", text):
        for item in body.split(","):
            m = re.match(r"\s*(\w+)", item)
            if m:
                names.append(m.group(1))
    for h in HEADERS:
        with open(os.path.join(ref, h)) as f:
            for m in re.finditer(r"^\s*#\s*define\s+(\w+)(?=\s|$)", f.read(), re.M):
                names.append(m.group(1))
    return list(dict.fromkeys(names))


def compile_and_run(source, inc, work, tag):
    src = os.path.join(work, f"{tag}.c")
    exe = os.path.join(work, tag)
    with open(src, "w") as f:
        f.write(source)
    # -O1 drops the unused static print_error(), whose call into the library
    # would otherwise need linking: the probes use the headers only.
    # BLOSC1_COMPAT: its Blosc1 names are part of the API to compare too.
    res = run([CC, "-std=c11", "-O1", "-Werror", "-fmax-errors=0", "-DBLOSC1_COMPAT",
               "-I", inc, src, "-o", exe])
    if res.returncode != 0:
        return None, res.stderr
    out = run([exe])
    if out.returncode != 0:
        sys.exit(f"layout: probe {tag} failed to run:\n{out.stderr}")
    return out.stdout, ""


CONST_PRELUDE = includes() + r"""
#include <stdio.h>
static void show_s(const char *n, const char *v) { printf("%s \"%s\"\n", n, v); }
static void show_i(const char *n, long long v) { printf("%s %lld\n", n, v); }
#define P(x) _Generic((x), char *: show_s, const char *: show_s, default: show_i)(#x, (x))
int main(void) {
"""


def constant_values(names, inc, work, tag):
    """{name: printed value} for the names that compile as constants with `inc`;
    names that do not compile are left out."""
    names = list(names)
    for _ in range(50):
        lines = [f"P({n});" for n in names]
        src = CONST_PRELUDE + "\n".join(lines) + "\nreturn 0; }\n"
        first = CONST_PRELUDE.count("\n") + 1
        out, err = compile_and_run(src, inc, work, tag)
        if out is not None:
            values = {}
            for line in out.splitlines():
                name, value = line.split(" ", 1)
                values[name] = value
            return values
        bad = set()
        for m in re.finditer(rf"{tag}\.c:(\d+):", err):
            idx = int(m.group(1)) - first
            if 0 <= idx < len(names):
                bad.add(idx)
        if not bad:
            sys.exit(f"layout: constants probe {tag} does not compile:\n{err}")
        names = [n for i, n in enumerate(names) if i not in bad]
    sys.exit("layout: constants probe did not converge")


EXPANSION_PRELUDE = includes() + r"""
#include <stdio.h>
#define STR2_(...) #__VA_ARGS__
#define STR_(x) STR2_(x)
#define P(x) printf("%s\t%s\n", #x, STR_(x))
int main(void) {
"""


def expansions(names, inc, work, tag):
    """{name: replacement text} of macros that are not constants (function
    aliases of BLOSC1_COMPAT, attribute macros, include guards)."""
    src = EXPANSION_PRELUDE + "\n".join(f"P({n});" for n in names) + "\nreturn 0; }\n"
    out, err = compile_and_run(src, inc, work, tag)
    if out is None:
        sys.exit(f"layout: expansion probe {tag} does not compile:\n{err}")
    return dict(line.split("\t", 1) for line in out.splitlines())


def strip_attributes(decl):
    """`decl` without GNU `__attribute__((...))` groups (balanced parentheses)."""
    while True:
        at = decl.find("__attribute__")
        if at < 0:
            return decl
        i = decl.index("(", at)
        depth = 0
        for j in range(i, len(decl)):
            depth += {"(": 1, ")": -1}.get(decl[j], 0)
            if depth == 0:
                break
        decl = (decl[:at] + decl[j + 1:]).strip()


def reference_prototypes(text):
    """{function name: prototype} of the functions the reference headers declare."""
    protos, stmt, depth = {}, [], 0
    for ch in text:
        stmt.append(ch)
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and "".join(stmt).lstrip().startswith("static"):
                stmt = []  # body of a static inline function
        elif ch == ";" and depth == 0:
            decl = " ".join("".join(stmt).split())
            stmt = []
            if "{" in decl or "(" not in decl or decl.startswith(("typedef", "static")):
                continue
            decl = strip_attributes(decl)
            m = re.search(r"(\w+)\s*\(", decl)
            if m:
                protos[m.group(1)] = decl
    return protos


def check_prototypes(ours, text, work):
    """Redeclares, after our headers, every reference prototype of a function
    our headers declare: C rejects any incompatible redeclaration."""
    src = os.path.join(work, "our_text.c")
    with open(src, "w") as f:
        f.write(includes())
    ours_pp = run([CC, "-E", "-I", ours, src]).stdout
    protos = reference_prototypes(text)
    declared = [n for n in protos if re.search(rf"\b{n}\s*\(", ours_pp)]
    probe = includes() + "\n".join(protos[n] for n in declared) + "\n"
    path = os.path.join(work, "prototypes.c")
    with open(path, "w") as f:
        f.write(probe)
    res = run([CC, "-std=c11", "-fsyntax-only", "-fmax-errors=0", "-I", ours, path])
    errors = re.findall(r"error: (.*)", res.stderr)
    return len(declared), len(protos), errors


def check_blosc1_coexistence(ref, ours, ref_values, work):
    """Blosc1's blosc.h defines (as macros) the names upstream guards with
    `#ifndef BLOSC_H`. A stand-in blosc.h defining each guarded name with a
    spelling of its own must be includable before our headers, as it is before
    the reference ones. Returns (number of guarded names, errors)."""
    with open(os.path.join(ref, "blosc2.h")) as f:
        text = f.read()
    guarded = []
    for block in re.findall(r"#ifndef BLOSC_H\b(.*?)#endif", text, re.S):
        guarded += re.findall(r"^\s*(?:#\s*define\s+)?(\w+)\s*(?:=|\s\")", block, re.M)
    mock = ["#ifndef BLOSC_H", "#define BLOSC_H"]
    mock += [f"#define {n} ({ref_values[n]})" for n in guarded if n in ref_values]
    mock += ["#endif"]
    incdir = os.path.join(work, "blosc1")
    os.makedirs(incdir, exist_ok=True)
    with open(os.path.join(incdir, "blosc.h"), "w") as f:
        f.write("\n".join(mock) + "\n")
    src = os.path.join(work, "coexist.c")
    with open(src, "w") as f:
        f.write('#include "blosc.h"\n' + includes())
    errors = []
    for tag, inc in (("reference", ref), ("ours", ours)):
        res = run([CC, "-std=c11", "-Werror", "-fsyntax-only", "-I", incdir, "-I", inc, src])
        if res.returncode != 0:
            errors.append(f"{tag}: " + "; ".join(re.findall(r"error: (.*)", res.stderr)[:10]))
    return len(guarded), errors


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ref, ours, work = sys.argv[1:]
    text = reference_text(ref, work)
    structs = parse_structs(text)
    failures = []

    # ---- layout ----
    body = []
    for name, fields in structs:
        body.append(f'printf("S\\t{name}\\t%zu\\t%zu\\n", sizeof({name}), _Alignof({name}));')
        for f in fields:
            body.append(
                f'printf("F\\t{name}\\t{f}\\t%zu\\t%zu\\n", offsetof({name}, {f}), '
                f"sizeof((({name} *)0)->{f}));"
            )
    probe = includes() + "#include <stddef.h>\n#include <stdio.h>\nint main(void) {\n"
    probe += "\n".join(body) + "\nreturn 0; }\n"
    out, err = compile_and_run(probe, ref, work, "layout_probe")
    if out is None:
        sys.exit(f"layout: probe does not compile against the reference:\n{err}")
    asserts = [includes(), "#include <stddef.h>",
               "#ifdef __cplusplus", "#define _Static_assert static_assert", "#endif"]
    nfields = 0
    for line in out.splitlines():
        kind, *rest = line.split("\t")
        if kind == "S":
            name, size, align = rest
            asserts.append(f'_Static_assert(sizeof({name}) == {size}, "sizeof({name}) == {size}");')
            # __alignof__: spelled the same in C and C++ (GCC, Clang).
            asserts.append(f'_Static_assert(__alignof__({name}) == {align}, "alignof({name}) == {align}");')
        else:
            name, field, off, size = rest
            nfields += 1
            asserts.append(f'_Static_assert(offsetof({name}, {field}) == {off}, '
                           f'"offsetof({name}, {field}) == {off}");')
            asserts.append(f'_Static_assert(sizeof((({name} *)0)->{field}) == {size}, '
                           f'"sizeof({name}.{field}) == {size}");')
    asserts_c = os.path.join(work, "layout_asserts.c")
    with open(asserts_c, "w") as f:
        f.write("\n".join(asserts) + "\n")
    asserts_cc = os.path.join(work, "layout_asserts.cc")
    with open(asserts_cc, "w") as f:
        f.write("\n".join(asserts) + "\n")
    for cmd in ([CC, "-std=c11"], [CXX, "-std=c++11"]):
        res = run(cmd + ["-fsyntax-only", "-fmax-errors=0", "-I", ours,
                         asserts_cc if cmd[0] == CXX else asserts_c])
        if res.returncode != 0:
            msgs = re.findall(r"(?:static assertion failed|error): (.*)", res.stderr)
            failures.append(f"layout ({cmd[0]}): " + "; ".join(msgs[:40]))

    # ---- constants ----
    names = constant_names(ref, text)
    ref_values = constant_values(names, ref, work, "const_ref")
    our_values = constant_values(list(ref_values), ours, work, "const_ours")
    equal = 0
    for name, value in ref_values.items():
        if our_values.get(name) == value:
            equal += 1
        else:
            failures.append(f"constant {name}: reference {value}, ours {our_values.get(name, 'missing')}")

    others = [n for n in names if n not in ref_values]
    ref_text = expansions(others, ref, work, "expand_ref")
    our_text = expansions(others, ours, work, "expand_ours")
    same_text = 0
    for name in others:
        if ref_text[name] == our_text[name]:
            same_text += 1
        else:
            failures.append(f"macro {name}: reference '{ref_text[name]}', ours '{our_text[name]}'")

    ndeclared, nprotos, proto_errors = check_prototypes(ours, text, work)
    failures += [f"prototype: {e}" for e in proto_errors]

    nguarded, coexist_errors = check_blosc1_coexistence(ref, ours, ref_values, work)
    failures += [f"with Blosc1's blosc.h first, {e}" for e in coexist_errors]

    print(f"layout: {len(structs)} structs, {nfields} fields "
          f"{'OK' if not any(f.startswith('layout') for f in failures) else 'MISMATCH'}; "
          f"constants: {equal}/{len(ref_values)} equal; "
          f"other macros: {same_text}/{len(others)} same expansion; "
          f"prototypes: {ndeclared} of upstream's {nprotos} declared, "
          f"{'all compatible' if not proto_errors else 'INCOMPATIBLE'}; "
          f"blosc.h coexistence ({nguarded} guarded names) "
          f"{'OK' if not coexist_errors else 'BROKEN'}")
    for f in failures:
        print("  " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
