#!/usr/bin/env python3
"""Writes the seed social graph as Neo4j import CSV for `quiver import`.

people.csv: `id:ID(Person),name` with PEOPLE rows (id: 24 hex digits, name: person-<n>);
knows.csv: `:START_ID(Person),:END_ID(Person),since:date`, 5 to 8 out-edges per person to
distinct others, each with a date in the 1,000 days before 2024-01-01. Seeded, so every run
writes the same files.

usage: seed_csv.py OUT_DIR [PEOPLE]   (PEOPLE defaults to 100000)
"""

import datetime
import os
import random
import sys


def main() -> None:
    out = sys.argv[1]
    people = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    rng = random.Random(42)
    os.makedirs(out, exist_ok=True)
    ids = ["%024x" % rng.getrandbits(96) for _ in range(people)]
    with open(os.path.join(out, "people.csv"), "w") as f:
        f.write("id:ID(Person),name\n")
        f.writelines(f"{pid},person-{n}\n" for n, pid in enumerate(ids))
    anchor = datetime.date(2024, 1, 1)
    dates = [(anchor - datetime.timedelta(days=d)).isoformat() for d in range(1, 1001)]
    edges = 0
    with open(os.path.join(out, "knows.csv"), "w") as f:
        f.write(":START_ID(Person),:END_ID(Person),since:date\n")
        for n, pid in enumerate(ids):
            friends = set()
            want = rng.randint(5, 8)
            while len(friends) < want:
                other = rng.randrange(people)
                if other != n:
                    friends.add(other)
            f.writelines(f"{pid},{ids[o]},{rng.choice(dates)}\n" for o in sorted(friends))
            edges += want
    print(f"{people} people, {edges} knows in {out}")


if __name__ == "__main__":
    main()
