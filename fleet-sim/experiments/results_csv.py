"""What the verdict scripts share: reading a bench run's results.csv. A missing file is said on stderr (a run that
failed, or never ran, would otherwise drop its cells without a word and make a variant look better), and an empty
figure (a policy that finished nothing at that load) reads as NaN instead of failing the whole script."""
import csv
import math
import os
import sys


def read(path, keep=lambda row: True):
    """The rows of path that keep accepts, or None (said on stderr) when there is no such file."""
    if not os.path.exists(path):
        print(f'warning: no {path} (its run failed or has not run): its cells are left out', file=sys.stderr)
        return None
    with open(path, newline='') as f:
        return [r for r in csv.DictReader(f) if keep(r)]


def num(text):
    """A figure of results.csv: NaN for the empty cell of a policy that finished nothing."""
    return float(text) if text not in ('', None) else math.nan


def best(texts):
    """The smallest figure of texts (the best peer's), NaN ones left out; NaN when none is a number."""
    return min((x for x in map(num, texts) if not math.isnan(x)), default=math.nan)
