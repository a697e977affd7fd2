#!/usr/bin/env python3
"""Writes the graph a running Quiver serves as Neo4j import CSV, so that `quiver import` can
build the very same database: every :Person (id, name), every :Counter (slot, hits) and every
:KNOWS (since), read over the HTTP API.

people.csv:   id:ID(Person),name
counters.csv: slot:int,hits:int
knows.csv:    :START_ID(Person),:END_ID(Person),since   (since as the string it is)

Nodes come in id order, as they were created, so the import numbers them alike.

usage: export_csv.py HTTP_ADDR OUT_DIR
"""

import csv
import json
import os
import sys
import urllib.request

PAGE = 50_000


def query(addr: str, statement: str, params: dict) -> list:
    body = json.dumps({"statements": [{"statement": statement, "parameters": params}]})
    req = urllib.request.Request(
        f"http://{addr}/db/neo4j/tx/commit",
        data=body.encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as resp:
        reply = json.load(resp)
    if reply.get("errors"):
        raise SystemExit(f"query failed: {reply['errors']}")
    return [r["row"] for r in reply["results"][0]["data"]]


def paged(addr: str, statement: str) -> list:
    """Rows of `statement` (which takes $skip and $limit), a page at a time."""
    rows, skip = [], 0
    while True:
        page = query(addr, statement, {"skip": skip, "limit": PAGE})
        rows.extend(page)
        if len(page) < PAGE:
            return rows
        skip += PAGE


def main() -> None:
    addr, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    people = paged(
        addr,
        "MATCH (p:Person) RETURN id(p), p.id, p.name ORDER BY id(p) SKIP $skip LIMIT $limit",
    )
    counters = paged(
        addr,
        "MATCH (c:Counter) RETURN id(c), c.slot, c.hits ORDER BY id(c) SKIP $skip LIMIT $limit",
    )
    knows = paged(
        addr,
        "MATCH (a:Person)-[k:KNOWS]->(b:Person) RETURN id(k), a.id, b.id, k.since "
        "ORDER BY id(k) SKIP $skip LIMIT $limit",
    )
    with open(os.path.join(out, "people.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id:ID(Person)", "name"])
        w.writerows(r[1:] for r in people)
    with open(os.path.join(out, "counters.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["slot:int", "hits:int"])
        w.writerows(r[1:] for r in counters)
    with open(os.path.join(out, "knows.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([":START_ID(Person)", ":END_ID(Person)", "since"])
        w.writerows(r[1:] for r in knows)
    print(f"{len(people)} people, {len(counters)} counters, {len(knows)} knows")


if __name__ == "__main__":
    main()
