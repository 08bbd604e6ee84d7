#!/usr/bin/env python3
"""classify.py REF.txt OURS.txt [CLASSES]: compare two `mutants run` outputs.

Prints how many mutants fall in each class; with CLASSES (comma-separated)
also lists those mutants.  OURS-REFUSE-ref-reads-orig are the cases to look
at first: 3.3.5 reads the original content back, we refuse."""
import sys, collections
def load(p):
    d = {}
    for l in open(p):
        k, v = l.rstrip('\n').split('\t', 1); d[k] = v
    return d
ref, ours = load(sys.argv[1]), load(sys.argv[2])
orig = ref['orig']
assert orig.startswith("OK"), ("the reference must read the unmutated source", orig)
cls = collections.defaultdict(list)
for k, r in ref.items():
    o = ours[k]
    rok, ook = r.startswith('OK'), o.startswith('OK')
    if r.startswith('CRASH'): c = 'ref-crash'
    elif o.startswith('CRASH'): c = 'OURS-CRASH'
    elif rok and ook: c = 'both-same' if r == o else 'both-read-DIFFER'
    elif not rok and not ook: c = 'both-refuse'
    elif rok: c = 'OURS-REFUSE-ref-reads-orig' if r == orig else ('OURS-REFUSE-ref-reads-same-data' if r.split()[2] == orig.split()[2] else 'ours-refuse-ref-reads-other')
    else: c = 'ours-reads-REF-REFUSES' + ('-orig' if o == orig else '')
    cls[c].append((k, r, o))
for c, v in sorted(cls.items()):
    print(f'{c}: {len(v)}')
    if len(sys.argv) > 3 and c in sys.argv[3].split(','):
        for x in v: print('   ', *x, sep='\t')
