#!/usr/bin/env python3
"""output_predictability.py [TRACE]: how well a router could predict a Mooncake request's output length.

Reads the Mooncake conversation trace (JSONL: input_length, output_length, hash_ids) and prints the output lengths'
mean and coefficient of variation, and the R² of a linear fit of the output length on (a) the prompt length, (b) its
logarithm, (c) the output length of the most recent earlier request sharing the longest prefix of block ids (what a
prefix index could remember). Low R² everywhere: a router sees almost nothing of a request's output length."""
import json, math, statistics as st, sys

TRACE = sys.argv[1] if len(sys.argv) > 1 else '../shared/traces/mooncake/conversation_trace.jsonl'


def r2(x, y):
    mx, my = st.mean(x), st.mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy * sxy / (sxx * syy)


rows = [json.loads(line) for line in open(TRACE)]
out = [r['output_length'] for r in rows]
isl = [r['input_length'] for r in rows]
print(f'requests {len(rows)}, output mean {st.mean(out):.1f}, median {st.median(out):.0f}, '
      f'CV {st.pstdev(out) / st.mean(out):.2f}')
print(f'R² output ~ prompt length {r2(isl, out):.3f}; ~ log prompt length {r2([math.log(a) for a in isl], out):.3f}')

last_output_by_prefix = {}
prev, cur = [], []
for r in rows:
    ids = r['hash_ids']
    for k in range(len(ids) - 1, 0, -1):  # the longest earlier-seen proper prefix
        key = tuple(ids[:k])
        if key in last_output_by_prefix:
            prev.append(last_output_by_prefix[key])
            cur.append(r['output_length'])
            break
    for k in range(1, len(ids) + 1):
        last_output_by_prefix[tuple(ids[:k])] = r['output_length']
print(f'R² output ~ output of the latest request with the longest shared prefix {r2(prev, cur):.3f} '
      f'({len(prev)} requests with one)')
