"""Recall@10 against the search list (ef) for the HNSW library behind Quiver's vector indexes.

Builds the library's graph directly (usearch, squared Euclidean over float32, m 16,
ef_construction 100, as vbench.py's index) over vbench.py's generated vectors, then asks it the
same queries at each ef and prints recall@10 against exact search. It answers which ef a
`vector.hnsw.ef_search` needs for a recall on this data, without loading a server.

usage: efsweep.py N DIMENSIONS [EF ...]   (the venv of run.sh, plus `pip install usearch==2.26.6`)
"""

import os
import sys

import numpy as np
from usearch.index import Index

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vbench  # noqa: E402


def main():
    n, dim = int(sys.argv[1]), int(sys.argv[2])
    sweep = [int(x) for x in sys.argv[3:]] or [26, 64, 100, 128, 200, 256, 400, 512]
    data, qs = vbench.generate(n, dim, 200)
    truth = vbench.exact_top(data, qs, vbench.K)
    index = Index(ndim=dim, metric="l2sq", dtype="f32", connectivity=16, expansion_add=100)
    index.add(np.arange(n), data, threads=os.cpu_count() or 1)
    for ef in sweep:
        index.expansion_search = ef
        # As Quiver's over-fetch does at k = 10: 26 candidates, the best 10 kept.
        found = [list(keys[:vbench.K]) for keys in index.search(qs, 26).keys]
        print(f"ef {ef}: recall@10 {vbench.recall(found, truth):.3f}", flush=True)


if __name__ == "__main__":
    main()
