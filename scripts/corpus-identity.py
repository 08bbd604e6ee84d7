#!/usr/bin/env python3
"""Byte identity of interop corpora written on different CPUs.

    corpus-identity.py [--strict NAME[:CODEC,...]]... NAME=DIR [NAME=DIR ...]

Each DIR is a corpus b2gen wrote (manifest.json + files) with the same seed.
The first one is the baseline; every other one is compared with it entry by
entry, and a Markdown table says how many entries are:

  identical      every file of the entry is byte for byte the baseline's
  host-order     the writer got other input bytes (b2gen makes typed data,
                 floats and integers, in the host's byte order, as a user's
                 program would), so the files cannot be compared
  differ         same input, other bytes: listed by codec, with the ids

Entries only one side has (refused by one writer) are counted apart.
--strict NAME makes the exit status 1 when writer NAME has entries that
differ, except in the codecs listed after the colon (the ones known to
depend on the CPU, e.g. i686:zstd); otherwise the exit status is 0: this
reports, the interop runs decide whether the files read.
"""

import collections
import json
import os
import sys


def load(root):
    with open(os.path.join(root, "manifest.json")) as f:
        return {e["id"]: e for e in json.load(f)["entries"]}


def files(root, rel):
    path = os.path.join(root, rel)
    if os.path.isdir(path):
        out = {}
        for d, _, names in os.walk(path):
            for n in names:
                p = os.path.join(d, n)
                with open(p, "rb") as f:
                    out[os.path.relpath(p, path)] = f.read()
        return out
    if os.path.exists(path):
        with open(path, "rb") as f:
            return {"": f.read()}
    return {}


def codec_of(entry):
    params = entry.get("params", {})
    name = params.get("compname") or params.get("cparams", {}).get("compname")
    if name:
        return name
    for feat in entry.get("features", []):
        if feat.startswith("codec:"):
            return feat[len("codec:"):]
    return entry.get("kind", "?")


def main(args):
    corpora = []
    strict = {}
    while args and args[0] == "--strict":
        name, _, allowed = args[1].partition(":")
        strict[name] = set(filter(None, allowed.split(",")))
        args = args[2:]
    failed = []
    for a in args:
        name, _, path = a.partition("=")
        if not path or not os.path.isfile(os.path.join(path, "manifest.json")):
            print(f"corpus-identity: no corpus for {a}", file=sys.stderr)
            continue
        corpora.append((name, path, load(path)))
    if len(corpora) < 2:
        print("corpus-identity: fewer than two corpora, nothing to compare")
        return 0
    base_name, base_path, base = corpora[0]
    print(f"| writer | compared with {base_name} | identical | host-order input | differ | only one side |")
    print("|---|---|---|---|---|---|")
    notes = []
    lines = []
    for name, path, entries in corpora[1:]:
        same = host = 0
        differ = collections.defaultdict(list)
        lonely = len(set(base) ^ set(entries))
        for i, e in entries.items():
            b = base.get(i)
            if b is None:
                continue
            if files(path, e["path"]) == files(base_path, b["path"]):
                same += 1
            elif e["expected"].get("sha256") != b["expected"].get("sha256"):
                host += 1
            else:
                differ[codec_of(e)].append(i)
        nd = sum(len(v) for v in differ.values())
        by = ", ".join(f"{c} {len(v)}" for c, v in sorted(differ.items()))
        print(f"| {name} | {base_name} | {same} | {host} | {nd}{' (' + by + ')' if by else ''} | {lonely} |")
        lines.append(
            f"{name} vs {base_name}: {same} identical, {host} host-order input, "
            f"{nd} differ{' (' + by + ')' if by else ''}, {lonely} on one side only"
        )
        for c, v in sorted(differ.items()):
            notes.append(f"{name} vs {base_name}, {c}: {' '.join(sorted(v))}")
            if name in strict and c not in strict[name]:
                failed.append(f"{name} {c}")
    print()
    for n in lines:
        print(f"identity: {n}")
    for n in notes:
        print(f"  {n}")
    if failed:
        print(f"identity: NOT IDENTICAL where required: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
