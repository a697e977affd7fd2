"""The study's whole-graph queries in Kuzu (embedded), on the graph `whole_graph --export DIR`
wrote: loads the CSV files with COPY (Kuzu uses every core for it), then runs each query once
to warm up and `runs` times more, and prints `name<TAB>wall ms<TAB>cpu ms<TAB>result` (medians;
CPU of the whole process, Kuzu's worker threads included), the result in the canonical form
`crates/engine/benches/follows.rs` prints Quiver's in: rows joined by `;`, values by `,`,
floats to three decimals. A query Kuzu refuses prints `error: ...` as its result.
"""

import statistics
import sys
import time

from kuzu_qps import fresh_database

# The queries of crates/engine/benches/follows.rs in Kuzu's dialect (`lower` for `toLower`).
QUERIES = [
    (
        "two_hop_paths",
        "MATCH (a:Person)-[:FOLLOWS]->(b:Person)-[:FOLLOWS]->(c:Person) RETURN count(*) AS numPaths",
    ),
    (
        "two_hop_age_filter",
        "MATCH (a:Person)-[:FOLLOWS]->(b:Person)-[:FOLLOWS]->(c:Person) WHERE b.age < 50 AND c.age > 25 RETURN count(*) AS numPaths",
    ),
    (
        "top3_followed",
        "MATCH (follower:Person)-[:FOLLOWS]->(person:Person) RETURN person.id AS id, person.name AS name, count(follower.id) AS numFollowers ORDER BY numFollowers DESC, id LIMIT 3",
    ),
    (
        "most_followed_city",
        "MATCH (follower:Person)-[:FOLLOWS]->(person:Person) WITH person, count(follower.id) AS numFollowers ORDER BY numFollowers DESC, person.id LIMIT 1 MATCH (person)-[:LIVES_IN]->(city:City) RETURN person.name AS name, numFollowers, city.city AS city, city.state AS state, city.country AS country",
    ),
    (
        "age_band_per_country",
        "MATCH (p:Person)-[:LIVES_IN]->(ci:City)-[*1..2]->(country:Country) WHERE p.age >= 30 AND p.age <= 40 RETURN country.country AS countries, count(country) AS personCounts ORDER BY personCounts DESC, countries LIMIT 3",
    ),
    (
        "youngest_cities_in_country",
        "MATCH (p:Person)-[:LIVES_IN]->(c:City)-[*1..2]->(co:Country) WHERE co.country = 'Country 3' RETURN c.city AS city, avg(p.age) AS averageAge ORDER BY averageAge, city LIMIT 5",
    ),
    (
        "interest_gender_city",
        "MATCH (p:Person)-[:HAS_INTEREST]->(i:Interest) WHERE lower(i.interest) = lower('INTEREST 7') AND lower(p.gender) = lower('Male') WITH p, i MATCH (p)-[:LIVES_IN]->(c:City) WHERE c.city = 'City 12' AND c.country = 'Country 0' RETURN count(p) AS numPersons",
    ),
    (
        "interest_gender_top_cities",
        "MATCH (p:Person)-[:HAS_INTEREST]->(i:Interest) WHERE lower(i.interest) = lower('INTEREST 11') AND lower(p.gender) = lower('Female') WITH p, i MATCH (p)-[:LIVES_IN]->(c:City) RETURN count(p.id) AS numPersons, c.city AS city, c.country AS country ORDER BY numPersons DESC, city LIMIT 5",
    ),
    (
        "state_age_interest",
        "MATCH (p:Person)-[:LIVES_IN]->(:City)-[:CITY_IN]->(s:State) WHERE p.age >= 23 AND p.age <= 30 AND s.country = 'Country 1' WITH p, s MATCH (p)-[:HAS_INTEREST]->(i:Interest) WHERE lower(i.interest) = lower('Interest 5') RETURN count(p.id) AS numPersons, s.state AS state, s.country AS country ORDER BY numPersons DESC, state LIMIT 1",
    ),
]

SCHEMA = [
    "CREATE NODE TABLE Person(id INT64, name STRING, gender STRING, age INT64, PRIMARY KEY(id))",
    "CREATE NODE TABLE City(id INT64, city STRING, state STRING, country STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE State(id INT64, state STRING, country STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE Country(id INT64, country STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE Interest(id INT64, interest STRING, PRIMARY KEY(id))",
    "CREATE REL TABLE FOLLOWS(FROM Person TO Person)",
    "CREATE REL TABLE LIVES_IN(FROM Person TO City)",
    "CREATE REL TABLE HAS_INTEREST(FROM Person TO Interest)",
    "CREATE REL TABLE CITY_IN(FROM City TO State)",
    "CREATE REL TABLE STATE_IN(FROM State TO Country)",
]

TABLES = [
    ("Person", "person"),
    ("City", "city"),
    ("State", "state"),
    ("Country", "country"),
    ("Interest", "interest"),
    ("FOLLOWS", "follows"),
    ("LIVES_IN", "lives_in"),
    ("HAS_INTEREST", "has_interest"),
    ("CITY_IN", "city_in"),
    ("STATE_IN", "state_in"),
]


def canonical(rows):
    def value(v):
        if isinstance(v, float):
            return f"{v:.3f}"
        if v is None:
            return "null"
        return str(v)

    return ";".join(",".join(value(v) for v in row) for row in rows)


def main():
    csv_dir, db_dir, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    only = sys.argv[4] if len(sys.argv) > 4 else None
    db, conn = fresh_database(db_dir)
    for ddl in SCHEMA:
        conn.execute(ddl)
    start = time.time()
    for table, file in TABLES:
        conn.execute(f"COPY {table} FROM '{csv_dir}/{file}.csv' (HEADER=false)")
    print(f"loaded into Kuzu in {time.time() - start:.1f}s", file=sys.stderr)
    for name, cypher in QUERIES:
        if only and only != name:
            continue
        walls, cpus, result = [], [], ""
        try:
            for run in range(runs + 1):
                t, c = time.perf_counter(), time.process_time()
                r = conn.execute(cypher)
                rows = []
                while r.has_next():
                    rows.append(r.get_next())
                wall, cpu = time.perf_counter() - t, time.process_time() - c
                result = canonical(rows)
                if run > 0:
                    walls.append(wall * 1e3)
                    cpus.append(cpu * 1e3)
            print(
                f"{name}\t{statistics.median(walls):.1f}\t{statistics.median(cpus):.1f}\t{result}",
                flush=True,
            )
        except Exception as e:  # Kuzu refuses the query: report and go on
            print(f"{name}\tn/a\tn/a\terror: {str(e).splitlines()[0]}", flush=True)


if __name__ == "__main__":
    main()
