"""Compares two SNB answer files (JSON lines `{"kind","params","ms","rows","error"}`, as
`quiver lab --workload ldbc-snb --snb-answers` and `kuzu_snb.py answers` write them), kind by
kind and parameter by parameter.

    compare.py QUIVER_ANSWERS OTHER_ANSWERS [NAME_A NAME_B]
    compare.py --timings QUIVER_ANSWERS KUZU_ANSWERS KUZU_TIMED


Reads of one kind are paired by their parameters. Rows are compared in order, except that rows
whose sort keys (the kind's ORDER BY columns the query returns) are equal are compared as a
multiset, so ties the specification leaves unordered (IC14's paths of equal weight, IC5's forums
ordered by an id it does not return) may come in any order. Within a row, the columns that hold
sets (IC1's universities and companies, IC12's tag names) are compared as multisets. Floats are
equal within 1e-9 relative; a temporal value, written as Cypher's text (`2010-03-04T12:34:56.789Z`,
`2010-03-04T12:34Z`, `1985-03-02`, optionally quoted or as `datetime('...')`) on either side, is
compared as the instant or day it names. A read the other side marks `n/a` (it cannot express
it) is counted apart, not as a difference.

Prints a table of kinds with equal, different and n/a counts and the first difference of each
kind; exits 1 on any difference, or on a read that only one side has.

With --timings, prints per kind the median `ms` of each answers file (one execution of every
parameter, in the same order on both sides) and the medians of `kuzu_snb.py timed`
(`kind<TAB>runs<TAB>wall ms<TAB>cpu ms`), with the ratios Quiver / Kuzu.
"""

import datetime
import json
import math
import re
import sys

# Per kind: the indexes of the returned columns its ORDER BY sorts on (the columns a tie is
# judged by), and the columns that hold unordered collections.
ORDER = {
    "IC1": [2, 1, 0],
    "IC2": [5, 3],
    "IC3": [3, 0],
    "IC4": [1, 0],
    "IC5": [1],  # then forum id, which the query does not return
    "IC6": [1, 0],
    "IC7": [3, 0],
    "IC8": [3, 4],
    "IC9": [5, 3],
    "IC10": [3, 0],
    "IC11": [4, 0, 3],
    "IC12": [4, 0],
    "IC13": [],
    "IC14": [1],  # paths of equal weight in any order
    "IS1": [],
    "IS2": [2, 0],
    "IS3": [3, 0],
    "IS4": [],
    "IS5": [],
    "IS6": [],
    "IS7": [2, 3],
}
SETS = {"IC1": [11, 12], "IC12": [3]}
KINDS = list(ORDER)

TEMPORAL = re.compile(
    r"^(?:(?:date|datetime|localdatetime)\(\s*)?'?"
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"(Z|[+-]\d{2}:?\d{2})?(?:\[[^\]]+\])?'?\)?$"
)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def temporal(text):
    """("date", days) or ("instant", nanoseconds since the epoch) of a temporal text, or None.
    A datetime without an offset is read as UTC."""
    m = TEMPORAL.match(text)
    if not m:
        return None
    year, month, day, hour, minute, second, frac, offset = m.groups()
    if hour is None:
        days = (datetime.date(int(year), int(month), int(day)) - EPOCH.date()).days
        return ("date", days)
    t = datetime.datetime(
        int(year), int(month), int(day), int(hour), int(minute), int(second or 0),
        tzinfo=datetime.timezone.utc,
    )
    nanos = int(((t - EPOCH) // datetime.timedelta(seconds=1)) * 10**9)
    if frac:
        nanos += int(frac.ljust(9, "0"))
    if offset and offset != "Z":
        sign = -1 if offset[0] == "-" else 1
        digits = offset[1:].replace(":", "")
        nanos -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60) * 10**9
    return ("instant", nanos)


def norm(value):
    """A value in a form that compares and hashes: temporal texts read, lists as tuples."""
    if isinstance(value, str):
        t = temporal(value)
        return ("temporal",) + t if t else value
    if isinstance(value, list):
        return tuple(norm(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, norm(v)) for k, v in value.items()))
    return value


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def sort_key(value):
    """An order over normalised values of mixed types (for multiset comparison)."""
    if value is None:
        return (0,)
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, (int, float)):
        return (2, float(value))
    if isinstance(value, str):
        return (3, value)
    if isinstance(value, tuple):
        return (4, tuple(sort_key(v) for v in value))
    return (5, repr(value))


def same_multiset(xs, ys):
    if len(xs) != len(ys):
        return False
    return all(same(x, y) for x, y in zip(sorted(xs, key=sort_key), sorted(ys, key=sort_key)))


def row_form(kind, row):
    row = tuple(norm(v) for v in row)
    sets = SETS.get(kind, [])
    if sets:
        row = tuple(
            tuple(sorted(v, key=sort_key)) if i in sets and isinstance(v, tuple) else v
            for i, v in enumerate(row)
        )
    return row


def groups(kind, rows):
    """Runs of rows with equal sort keys, in order."""
    keys = ORDER[kind]
    out = []
    for row in rows:
        key = tuple(row[i] for i in keys if i < len(row))
        if out and same(out[-1][0], key):
            out[-1][1].append(row)
        else:
            out.append((key, [row]))
    return out


def difference(kind, a, b):
    """None when two answers agree, else a short description of where they part."""
    if a.get("error") or b.get("error"):
        if a.get("error") and b.get("error"):
            return None
        return f"error: {a.get('error') or '-'} | {b.get('error') or '-'}"
    rows_a = [row_form(kind, r) for r in a["rows"]]
    rows_b = [row_form(kind, r) for r in b["rows"]]
    if len(rows_a) != len(rows_b):
        return f"{len(rows_a)} rows | {len(rows_b)} rows; first rows {short(a['rows'][:2])} | {short(b['rows'][:2])}"
    if any(len(x) != len(y) for x, y in zip(rows_a, rows_b)):
        return f"column counts differ: {short(a['rows'][:1])} | {short(b['rows'][:1])}"
    ga, gb = groups(kind, rows_a), groups(kind, rows_b)
    for n, ((ka, ra), (kb, rb)) in enumerate(zip(ga, gb)):
        if not same(ka, kb) or not same_multiset(ra, rb):
            at = sum(len(r) for _, r in ga[:n])
            return f"row {at}: {short(a['rows'][at:at + len(ra)])} | {short(b['rows'][at:at + len(rb)])}"
    if len(ga) != len(gb):
        return "rows in a different order"
    return None


def short(value, width=400):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def read(path):
    by_kind = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                answer = json.loads(line)
                key = json.dumps(answer["params"], sort_keys=True)
                by_kind.setdefault(answer["kind"], {}).setdefault(key, []).append(answer)
    return by_kind


def is_na(answer):
    return (answer.get("error") or "").startswith("n/a")


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if n == 0 else (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2)


def timings(quiver_path, kuzu_path, timed_path):
    def pass_ms(path):
        ms = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    answer = json.loads(line)
                    if not answer.get("error"):
                        ms.setdefault(answer["kind"], []).append(answer["ms"])
        return {k: median(v) for k, v in ms.items()}

    quiver, kuzu = pass_ms(quiver_path), pass_ms(kuzu_path)
    timed = {}
    with open(timed_path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 4 and fields[2] != "n/a":
                timed[fields[0]] = (int(fields[1]), float(fields[2]), float(fields[3]))

    def fmt(x):
        return "n/a" if x is None else f"{x:.3f}"

    def ratio(a, b):
        return "n/a" if a is None or not b else f"{a / b:.3g}x"

    print("# median ms per read: one pass over every parameter (Quiver over Bolt on loopback,")
    print("# Kuzu embedded), and Kuzu's timed rounds (warm; wall and CPU of the whole process)")
    print(
        f"{'kind':<6} {'quiver':>10} {'kuzu-pass':>10} {'ratio':>8} {'kuzu-wall':>10} {'kuzu-cpu':>10} {'runs':>6} {'ratio':>8}"
    )
    for kind in KINDS:
        if kind not in quiver and kind not in kuzu and kind not in timed:
            continue
        q, k = quiver.get(kind), kuzu.get(kind)
        runs, wall, cpu = timed.get(kind, (0, None, None))
        print(
            f"{kind:<6} {fmt(q):>10} {fmt(k):>10} {ratio(q, k):>8} {fmt(wall):>10} {fmt(cpu):>10} {runs:>6} {ratio(q, wall):>8}"
        )


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--timings":
        timings(*sys.argv[2:])
        return
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    a, b = read(sys.argv[1]), read(sys.argv[2])
    name_a, name_b = (sys.argv[3], sys.argv[4]) if len(sys.argv) == 5 else ("quiver", "other")
    print(f"# differences are shown as {name_a} | {name_b}")
    print(f"{'kind':<6} {'reads':>6} {'equal':>6} {'diff':>6} {'n/a':>6} {'unpaired':>8}  first difference")
    failed = False
    kinds = KINDS + sorted((set(a) | set(b)) - set(KINDS))
    for kind in kinds:
        ka, kb = a.get(kind, {}), b.get(kind, {})
        if not ka and not kb:
            continue
        equal = diff = na = unpaired = 0
        first = ""
        for key in list(ka) + [k for k in kb if k not in ka]:
            xs, ys = ka.get(key, []), kb.get(key, [])
            unpaired += abs(len(xs) - len(ys))
            for x, y in zip(xs, ys):
                if is_na(x) or is_na(y):
                    na += 1
                    continue
                d = difference(kind, x, y) if kind in ORDER else "unknown kind"
                if d is None:
                    equal += 1
                else:
                    diff += 1
                    if not first:
                        first = f"{short(x['params'], 160)}: {d}"
        failed |= diff > 0 or unpaired > 0
        reads = max(sum(map(len, ka.values())), sum(map(len, kb.values())))
        print(f"{kind:<6} {reads:>6} {equal:>6} {diff:>6} {na:>6} {unpaired:>8}  {first}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
