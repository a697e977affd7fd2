"""The LDBC SNB Interactive v1 reads in Kuzu (embedded), beside Quiver's
`quiver lab --workload ldbc-snb`.

    kuzu_snb.py load    DATA DB           # schema from the bulk files' headers, COPY every file
    kuzu_snb.py answers DATA DB OUT       # every curated read of params.json once, as JSON lines
    kuzu_snb.py timed   DATA DB ROUNDS [N] # each kind's (first N) parameters ROUNDS times, after a warm-up

DATA is the generator's directory (`params.json` and the bulk CSVs under `bulk/`), DB the Kuzu
database's path.

`answers` writes one line per read, `{"kind","params","ms","rows","error"}`, in the order
`quiver lab --snb-answers` writes Quiver's (kinds in the specification's order, each kind's
parameters in params.json's order): values are JSON where JSON has the type; a datetime is
written `YYYY-MM-DDTHH:MM:SS.mmmZ` and a date `YYYY-MM-DD` (compare.py reads both sides'
temporal texts to one form). `timed` prints `kind<TAB>runs<TAB>median wall ms<TAB>median CPU ms`
per kind, per single execution (CPU of the whole process, Kuzu's worker threads included).

Each query is written from the specification's definition of its operation, with the columns,
order, tie-breaks and limits of crates/lab/src/snb/queries.rs. Where Kuzu's Cypher cannot say a
part of an operation, the part is computed here in Python over Kuzu's rows, and the function
says so; the time of that Python is inside the measured time.

The graph: a Post and a Comment are separate node tables (Kuzu has one label per node); a
`Message` is the union `(m:Post:Comment)`, whose missing properties read as null (a Comment's
imageFile). Relationship types that join several label pairs are one REL TABLE with several
FROM/TO pairs. Variable-length patterns in Kuzu need an upper bound: the KNOWS shortest paths
and reply chains here are bounded by MAX_DEPTH, far above any distance in the generated graph.

Kuzu's planner does not always start a pattern at its seek: IC8's four hops in one MATCH took
12 s a read at SF0.1 where the same hops taken one `WITH` at a time, from the person outward,
take 40 ms (IC3 1.5 s against 0.1 s, IC7 1.1 s against 0.2 s, IC14's pair weights seconds against
0.2 s). Those four are written in stages, as a Kuzu user would write them; the other reads, whose
single MATCH measured faster than stages (IC2, IC4, IC6, IC12, IS7 by 1.5 to 4 times), are not.
The stages do not change what is matched.
"""

import datetime
import json
import os
import shutil
import statistics
import sys
import time

import kuzu

MAX_DEPTH = 100
EPOCH = datetime.datetime(1970, 1, 1)

# The bulk files: file name -> node table, or (rel table, from table, to table).
NODE_FILES = {
    "person.csv": "Person",
    "city.csv": "City",
    "country.csv": "Country",
    "continent.csv": "Continent",
    "university.csv": "University",
    "company.csv": "Company",
    "tagclass.csv": "TagClass",
    "tag.csv": "Tag",
    "forum.csv": "Forum",
    "post.csv": "Post",
    "comment.csv": "Comment",
}
REL_FILES = {
    "person_knows_person.csv": ("KNOWS", "Person", "Person"),
    "person_isLocatedIn_city.csv": ("IS_LOCATED_IN", "Person", "City"),
    "person_hasInterest_tag.csv": ("HAS_INTEREST", "Person", "Tag"),
    "person_studyAt_university.csv": ("STUDY_AT", "Person", "University"),
    "person_workAt_company.csv": ("WORK_AT", "Person", "Company"),
    "person_likes_post.csv": ("LIKES", "Person", "Post"),
    "person_likes_comment.csv": ("LIKES", "Person", "Comment"),
    "forum_hasMember_person.csv": ("HAS_MEMBER", "Forum", "Person"),
    "forum_hasModerator_person.csv": ("HAS_MODERATOR", "Forum", "Person"),
    "forum_hasTag_tag.csv": ("HAS_TAG", "Forum", "Tag"),
    "forum_containerOf_post.csv": ("CONTAINER_OF", "Forum", "Post"),
    "post_hasTag_tag.csv": ("HAS_TAG", "Post", "Tag"),
    "comment_hasTag_tag.csv": ("HAS_TAG", "Comment", "Tag"),
    "post_hasCreator_person.csv": ("HAS_CREATOR", "Post", "Person"),
    "comment_hasCreator_person.csv": ("HAS_CREATOR", "Comment", "Person"),
    "post_isLocatedIn_country.csv": ("IS_LOCATED_IN", "Post", "Country"),
    "comment_isLocatedIn_country.csv": ("IS_LOCATED_IN", "Comment", "Country"),
    "comment_replyOf_post.csv": ("REPLY_OF", "Comment", "Post"),
    "comment_replyOf_comment.csv": ("REPLY_OF", "Comment", "Comment"),
    "city_isPartOf_country.csv": ("IS_PART_OF", "City", "Country"),
    "country_isPartOf_continent.csv": ("IS_PART_OF", "Country", "Continent"),
    "university_isLocatedIn_city.csv": ("IS_LOCATED_IN", "University", "City"),
    "company_isLocatedIn_country.csv": ("IS_LOCATED_IN", "Company", "Country"),
    "tag_hasType_tagclass.csv": ("HAS_TYPE", "Tag", "TagClass"),
    "tagclass_isSubclassOf_tagclass.csv": ("IS_SUBCLASS_OF", "TagClass", "TagClass"),
}

# Neo4j-import header types -> Kuzu types (untyped columns are strings).
TYPES = {
    "": "STRING",
    "string": "STRING",
    "int": "INT64",
    "long": "INT64",
    "float": "DOUBLE",
    "double": "DOUBLE",
    "boolean": "BOOLEAN",
    "date": "DATE",
    "datetime": "TIMESTAMP",
    "string[]": "STRING[]",
}
# The generator's array delimiter (Neo4j import's default).
ARRAY_DELIMITER = ";"


def bulk_dir(data):
    bulk = os.path.join(data, "bulk")
    return bulk if os.path.isdir(bulk) else data


def header(path):
    """The columns of a bulk file's header: (name, Kuzu type, role) with role one of "id",
    "start", "end" or "" for a property."""
    with open(path, encoding="utf-8") as f:
        line = f.readline().rstrip("\r\n")
    columns = []
    for field in line.split(","):
        name, _, ty = field.partition(":")
        if ty.startswith("ID"):
            columns.append((name or "id", "INT64", "id"))
        elif ty.startswith("START_ID"):
            columns.append(("_from", "INT64", "start"))
        elif ty.startswith("END_ID"):
            columns.append(("_to", "INT64", "end"))
        else:
            columns.append((name, TYPES[ty.lower()], ""))
    return columns


def copy_statement(table, path, columns, pair=None):
    """COPY of one bulk file. The header line is skipped; the columns load by position. A list
    column is read as a string and split on the array delimiter (Kuzu's CSV reader takes lists
    in brackets only). An empty field is null, an empty list field too: `quiver import` (as
    Neo4j's) leaves the property absent."""
    options = f" (from='{pair[0]}', to='{pair[1]}')" if pair else ""
    if not any(ty.endswith("[]") for _, ty, _ in columns):
        inner = ", " + options[2:-1] if pair else ""
        return f"COPY {table} FROM '{path}' (HEADER=true{inner})"
    heads = ", ".join(f"`{n}` {'STRING' if ty.endswith('[]') else ty}" for n, ty, _ in columns)
    values = ", ".join(
        f"string_split(`{n}`, '{ARRAY_DELIMITER}')"
        if ty.endswith("[]")
        else f"`{n}`"
        for n, ty, _ in columns
    )
    return f"COPY {table} FROM (LOAD WITH HEADERS ({heads}) FROM '{path}' (HEADER=true) RETURN {values}){options}"


def load(data, db_dir):
    for path in (db_dir, db_dir + ".wal"):
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    bulk = bulk_dir(data)
    db = kuzu.Database(db_dir)
    conn = kuzu.Connection(db)
    started = time.time()
    for file, table in NODE_FILES.items():
        columns = header(os.path.join(bulk, file))
        props = ", ".join(f"{n} {ty}" for n, ty, _ in columns)
        key = next(n for n, _, role in columns if role == "id")
        conn.execute(f"CREATE NODE TABLE {table}({props}, PRIMARY KEY({key}))")
    rels = {}
    for file, (table, start, end) in REL_FILES.items():
        rels.setdefault(table, []).append((file, start, end))
    for table, files in rels.items():
        columns = header(os.path.join(bulk, files[0][0]))
        pairs = ", ".join(f"FROM {s} TO {e}" for _, s, e in files)
        props = "".join(f", {n} {ty}" for n, ty, role in columns if not role)
        conn.execute(f"CREATE REL TABLE {table}({pairs}{props})")
    for file, table in NODE_FILES.items():
        path = os.path.join(bulk, file)
        conn.execute(copy_statement(table, path, header(path)))
    for table, files in rels.items():
        for file, start, end in files:
            path = os.path.join(bulk, file)
            pair = (start, end) if len(files) > 1 else None
            conn.execute(copy_statement(table, path, header(path), pair))
    print(f"# loaded {bulk} into Kuzu in {time.time() - started:.1f} s", file=sys.stderr)


def ts(millis):
    return EPOCH + datetime.timedelta(milliseconds=millis)


def rows_of(conn, query, params):
    result = conn.execute(query, params)
    rows = []
    while result.has_next():
        rows.append(result.get_next())
    return rows


# ---- the reads -------------------------------------------------------------------------------

FRIENDS_2 = """
MATCH (start:Person {id: $personId})-[:KNOWS*1..2]-(friend:Person)
WHERE friend.id <> $personId
WITH DISTINCT friend
"""

IC1 = f"""
MATCH path = (start:Person {{id: $personId}})-[:KNOWS* SHORTEST 1..3]-(friend:Person {{firstName: $firstName}})
WHERE friend.id <> $personId
WITH friend, length(path) AS distanceFromPerson
ORDER BY distanceFromPerson ASC, friend.lastName ASC, friend.id ASC
LIMIT 20
MATCH (friend)-[:IS_LOCATED_IN]->(friendCity:City)
OPTIONAL MATCH (friend)-[studyAt:STUDY_AT]->(university:University)-[:IS_LOCATED_IN]->(universityCity:City)
WITH friend, distanceFromPerson, friendCity,
     collect(CASE WHEN university IS NULL THEN NULL
                  ELSE {{name: university.name, year: studyAt.classYear, place: universityCity.name}} END) AS friendUniversities
OPTIONAL MATCH (friend)-[workAt:WORK_AT]->(company:Company)-[:IS_LOCATED_IN]->(companyCountry:Country)
WITH friend, distanceFromPerson, friendCity, friendUniversities,
     collect(CASE WHEN company IS NULL THEN NULL
                  ELSE {{name: company.name, year: workAt.workFrom, place: companyCountry.name}} END) AS friendCompanies
RETURN friend.id AS friendId, friend.lastName AS friendLastName, distanceFromPerson,
       friend.birthday, friend.creationDate, friend.gender, friend.browserUsed, friend.locationIP,
       friend.emails, friend.languages, friendCity.name, friendUniversities, friendCompanies
ORDER BY distanceFromPerson ASC, friendLastName ASC, friendId ASC
"""


def ic1(conn, op):
    # A summary is a list [name, year, place] of a string, an integer and a string: Kuzu's
    # lists hold one type, so Kuzu collects structs and they are made lists here (and Kuzu's
    # collect of nothing but nulls is null, not an empty list).
    rows = rows_of(conn, IC1, {"personId": op["person_id"], "firstName": op["first_name"]})
    for row in rows:
        for i in (11, 12):
            row[i] = [[s["name"], s["year"], s["place"]] for s in row[i] or []]
    return rows


IC2 = """
MATCH (:Person {id: $personId})-[:KNOWS]-(friend:Person)<-[:HAS_CREATOR]-(message:Post:Comment)
WHERE message.creationDate <= $maxDate
RETURN friend.id, friend.firstName, friend.lastName, message.id AS messageId,
       coalesce(message.content, message.imageFile), message.creationDate AS messageCreationDate
ORDER BY messageCreationDate DESC, messageId ASC
LIMIT 20
"""


def ic2(conn, op):
    return rows_of(conn, IC2, {"personId": op["person_id"], "maxDate": ts(op["max_date"])})


IC3 = (
    FRIENDS_2
    + """
MATCH (friend)-[:IS_LOCATED_IN]->(:City)-[:IS_PART_OF]->(home:Country)
WHERE home.name <> $countryXName AND home.name <> $countryYName
WITH friend
MATCH (friend)<-[:HAS_CREATOR]-(message:Post:Comment)
WHERE message.creationDate >= $startDate AND message.creationDate < $endDate
WITH friend, message
MATCH (message)-[:IS_LOCATED_IN]->(country:Country)
WHERE country.name = $countryXName OR country.name = $countryYName
WITH friend,
     count(CASE WHEN country.name = $countryXName THEN 1 END) AS xCount,
     count(CASE WHEN country.name = $countryYName THEN 1 END) AS yCount
WHERE xCount > 0 AND yCount > 0
RETURN friend.id AS personId, friend.firstName, friend.lastName, xCount, yCount, xCount + yCount
ORDER BY xCount DESC, personId ASC
LIMIT 20
"""
)


def window(op):
    start = ts(op["start_date"])
    return start, start + datetime.timedelta(days=op["duration_days"])


def ic3(conn, op):
    start, end = window(op)
    return rows_of(
        conn,
        IC3,
        {
            "personId": op["person_id"],
            "countryXName": op["country_x_name"],
            "countryYName": op["country_y_name"],
            "startDate": start,
            "endDate": end,
        },
    )


IC4 = """
MATCH (:Person {id: $personId})-[:KNOWS]-(friend:Person)<-[:HAS_CREATOR]-(post:Post)-[:HAS_TAG]->(tag:Tag)
WITH tag,
     count(CASE WHEN post.creationDate >= $startDate AND post.creationDate < $endDate THEN 1 END) AS postCount,
     count(CASE WHEN post.creationDate < $startDate THEN 1 END) AS earlierCount
WHERE postCount > 0 AND earlierCount = 0
RETURN tag.name AS tagName, postCount
ORDER BY postCount DESC, tagName ASC
LIMIT 10
"""


def ic4(conn, op):
    start, end = window(op)
    return rows_of(conn, IC4, {"personId": op["person_id"], "startDate": start, "endDate": end})


IC5 = (
    FRIENDS_2
    + """
MATCH (friend)<-[membership:HAS_MEMBER]-(forum:Forum)
WHERE membership.joinDate > $minDate
OPTIONAL MATCH (friend)<-[:HAS_CREATOR]-(post:Post)<-[:CONTAINER_OF]-(forum)
WITH forum, count(post) AS postCount
RETURN forum.title, postCount, forum.id AS forumId
ORDER BY postCount DESC, forumId ASC
LIMIT 20
"""
)


def ic5(conn, op):
    # The forum's id, the tie-break, is returned for the ORDER BY and dropped here.
    rows = rows_of(conn, IC5, {"personId": op["person_id"], "minDate": ts(op["min_date"])})
    return [row[:2] for row in rows]


IC6 = (
    FRIENDS_2
    + """
MATCH (friend)<-[:HAS_CREATOR]-(post:Post)-[:HAS_TAG]->(:Tag {name: $tagName})
MATCH (post)-[:HAS_TAG]->(tag:Tag)
WHERE tag.name <> $tagName
RETURN tag.name AS tagName, count(post) AS postCount
ORDER BY postCount DESC, tagName ASC
LIMIT 10
"""
)


def ic6(conn, op):
    return rows_of(conn, IC6, {"personId": op["person_id"], "tagName": op["tag_name"]})


# The latest like of each liker (on equal times the message with the lowest id), as two
# aggregations: Kuzu does not promise the order of a collect after ORDER BY.
IC7 = """
MATCH (start:Person {id: $personId})<-[:HAS_CREATOR]-(message:Post:Comment)
WITH start, message
MATCH (message)<-[like:LIKES]-(liker:Person)
WITH start, liker, max(like.creationDate) AS likeTime
MATCH (start)<-[:HAS_CREATOR]-(message:Post:Comment)
WITH start, liker, likeTime, message
MATCH (message)<-[like:LIKES]-(liker)
WHERE like.creationDate = likeTime
WITH start, liker, likeTime, min(message.id) AS messageId
MATCH (message:Post:Comment {id: messageId})
RETURN liker.id AS personId, liker.firstName, liker.lastName, likeTime AS likeCreationDate,
       message.id, coalesce(message.content, message.imageFile), message.creationDate,
       NOT EXISTS { MATCH (liker)-[:KNOWS]-(start) }
ORDER BY likeCreationDate DESC, personId ASC
LIMIT 20
"""


def ic7(conn, op):
    # minutesLatency, the whole minutes from the message to the like, is computed here from
    # the two times Kuzu returns (Kuzu has no duration-in-minutes of two timestamps).
    rows = rows_of(conn, IC7, {"personId": op["person_id"]})
    out = []
    for liker, first, last, like_time, message, content, created, is_new in rows:
        seconds = (like_time - created) // datetime.timedelta(seconds=1)
        minutes = int(seconds / 60)  # toward zero, as Cypher's duration.inSeconds(..).minutes
        out.append([liker, first, last, like_time, message, content, minutes, is_new])
    return out


IC8 = """
MATCH (:Person {id: $personId})<-[:HAS_CREATOR]-(message:Post:Comment)
WITH message
MATCH (message)<-[:REPLY_OF]-(comment:Comment)
WITH comment
MATCH (comment)-[:HAS_CREATOR]->(author:Person)
RETURN author.id, author.firstName, author.lastName, comment.creationDate AS commentCreationDate,
       comment.id AS commentId, comment.content
ORDER BY commentCreationDate DESC, commentId ASC
LIMIT 20
"""


def ic8(conn, op):
    return rows_of(conn, IC8, {"personId": op["person_id"]})


IC9 = (
    FRIENDS_2
    + """
MATCH (friend)<-[:HAS_CREATOR]-(message:Post:Comment)
WHERE message.creationDate < $maxDate
RETURN friend.id, friend.firstName, friend.lastName, message.id AS messageId,
       coalesce(message.content, message.imageFile), message.creationDate AS messageCreationDate
ORDER BY messageCreationDate DESC, messageId ASC
LIMIT 20
"""
)


def ic9(conn, op):
    return rows_of(conn, IC9, {"personId": op["person_id"], "maxDate": ts(op["max_date"])})


IC10 = """
MATCH (start:Person {id: $personId})-[:KNOWS*2..2]-(candidate:Person)
WHERE candidate.id <> $personId AND NOT EXISTS { MATCH (candidate)-[:KNOWS]-(start) }
WITH DISTINCT candidate
WHERE (date_part('month', candidate.birthday) = $month AND date_part('day', candidate.birthday) >= 21)
   OR (date_part('month', candidate.birthday) = $month % 12 + 1 AND date_part('day', candidate.birthday) < 22)
MATCH (candidate)-[:IS_LOCATED_IN]->(city:City)
WITH candidate, city,
     COUNT { MATCH (candidate)<-[:HAS_CREATOR]-(:Post) } AS postCount,
     COUNT { MATCH (candidate)<-[:HAS_CREATOR]-(post:Post)
             WHERE EXISTS { MATCH (post)-[:HAS_TAG]->(:Tag)<-[:HAS_INTEREST]-(:Person {id: $personId}) } } AS commonPostCount
RETURN candidate.id AS personId, candidate.firstName, candidate.lastName,
       commonPostCount - (postCount - commonPostCount) AS commonInterestScore,
       candidate.gender, city.name
ORDER BY commonInterestScore DESC, personId ASC
LIMIT 10
"""


def ic10(conn, op):
    return rows_of(conn, IC10, {"personId": op["person_id"], "month": op["month"]})


IC11 = (
    FRIENDS_2
    + """
MATCH (friend)-[workAt:WORK_AT]->(company:Company)-[:IS_LOCATED_IN]->(:Country {name: $countryName})
WHERE workAt.workFrom < $workFromYear
RETURN friend.id AS personId, friend.firstName, friend.lastName,
       company.name AS organizationName, workAt.workFrom AS organizationWorkFromYear
ORDER BY organizationWorkFromYear ASC, personId ASC, organizationName DESC
LIMIT 10
"""
)


def ic11(conn, op):
    return rows_of(
        conn,
        IC11,
        {
            "personId": op["person_id"],
            "countryName": op["country_name"],
            "workFromYear": op["work_from_year"],
        },
    )


IC12 = f"""
MATCH (:Person {{id: $personId}})-[:KNOWS]-(friend:Person)<-[:HAS_CREATOR]-(comment:Comment)-[:REPLY_OF]->(:Post)-[:HAS_TAG]->(tag:Tag)
WHERE EXISTS {{ MATCH (tag)-[:HAS_TYPE]->(:TagClass)-[:IS_SUBCLASS_OF*0..{MAX_DEPTH}]->(:TagClass {{name: $tagClassName}}) }}
RETURN friend.id AS personId, friend.firstName, friend.lastName,
       collect(DISTINCT tag.name), count(DISTINCT comment.id) AS replyCount
ORDER BY replyCount DESC, personId ASC
LIMIT 20
"""


def ic12(conn, op):
    return rows_of(conn, IC12, {"personId": op["person_id"], "tagClassName": op["tag_class_name"]})


PAIR = "MATCH (person1:Person {id: $person1Id}), (person2:Person {id: $person2Id}) RETURN count(*)"
IC13 = f"""
MATCH (person1:Person {{id: $person1Id}}), (person2:Person {{id: $person2Id}})
MATCH path = (person1)-[:KNOWS* SHORTEST 1..{MAX_DEPTH}]-(person2)
RETURN length(path)
"""


def ic13(conn, op):
    # Kuzu's OPTIONAL MATCH of a shortest path yields no row when no path joins the two (where
    # Cypher yields one row with a null path), and its paths are at least one hop long: so the
    # pair is looked up first, and the same person (0) and no path (-1) are answered here.
    params = {"person1Id": op["person1_id"], "person2Id": op["person2_id"]}
    if rows_of(conn, PAIR, params)[0][0] == 0:
        return []
    if op["person1_id"] == op["person2_id"]:
        return [[0]]
    rows = rows_of(conn, IC13, params)
    return [[rows[0][0]]] if rows else [[-1]]


IC14_PATHS = f"""
MATCH (person1:Person {{id: $person1Id}}), (person2:Person {{id: $person2Id}})
MATCH path = (person1)-[:KNOWS* ALL SHORTEST 1..{MAX_DEPTH}]-(person2)
RETURN properties(nodes(path), 'id')
"""
IC14_WEIGHTS = """
UNWIND $pairs AS pair
MATCH (:Person {id: pair[1]})<-[:HAS_CREATOR]-(m1:Post:Comment)
WITH pair, m1
MATCH (m1)-[:REPLY_OF]-(m2:Post:Comment)
WITH pair, m1, m2
MATCH (m2)-[:HAS_CREATOR]->(b:Person)
WHERE b.id = pair[2]
RETURN pair[1], pair[2],
       sum(CASE WHEN label(m1) = 'Post' OR label(m2) = 'Post' THEN CAST(1.0 AS DOUBLE) ELSE CAST(0.5 AS DOUBLE) END)
"""


def ic14(conn, op):
    # Kuzu finds every shortest path (ALL SHORTEST) and the interaction weight of each pair of
    # neighbours on them (one query over the distinct pairs); a path's weight, the sum over its
    # consecutive pairs, and the order by weight are computed here: Kuzu has no list
    # comprehension over a path's nodes to sum a subquery per pair.
    params = {"person1Id": op["person1_id"], "person2Id": op["person2_id"]}
    if rows_of(conn, PAIR, params)[0][0] == 0:
        return []
    if op["person1_id"] == op["person2_id"]:
        return [[[op["person1_id"]], 0.0]]
    paths = [row[0] for row in rows_of(conn, IC14_PATHS, params)]
    pairs = sorted({(min(a, b), max(a, b)) for p in paths for a, b in zip(p, p[1:])})
    weight = {}
    if pairs:
        for a, b, w in rows_of(conn, IC14_WEIGHTS, {"pairs": [list(p) for p in pairs]}):
            weight[(a, b)] = float(w)
    rows = [
        [p, float(sum(weight.get((min(a, b), max(a, b)), 0.0) for a, b in zip(p, p[1:])))]
        for p in paths
    ]
    rows.sort(key=lambda row: -row[1])
    return rows


IS1 = """
MATCH (person:Person {id: $personId})-[:IS_LOCATED_IN]->(city:City)
RETURN person.firstName, person.lastName, person.birthday, person.locationIP, person.browserUsed,
       city.id, person.gender, person.creationDate
"""
IS2 = f"""
MATCH (:Person {{id: $personId}})<-[:HAS_CREATOR]-(message:Post:Comment)
WITH message
ORDER BY message.creationDate DESC, message.id DESC
LIMIT 10
MATCH (message)-[:REPLY_OF*0..{MAX_DEPTH}]->(post:Post)-[:HAS_CREATOR]->(author:Person)
RETURN message.id AS messageId, coalesce(message.content, message.imageFile),
       message.creationDate AS messageCreationDate, post.id, author.id, author.firstName, author.lastName
ORDER BY messageCreationDate DESC, messageId DESC
"""
IS3 = """
MATCH (:Person {id: $personId})-[knows:KNOWS]-(friend:Person)
RETURN friend.id AS personId, friend.firstName, friend.lastName, knows.creationDate AS friendshipCreationDate
ORDER BY friendshipCreationDate DESC, personId ASC
"""
IS4 = """
MATCH (message:Post:Comment {id: $messageId})
RETURN message.creationDate, coalesce(message.content, message.imageFile)
"""
IS5 = """
MATCH (:Post:Comment {id: $messageId})-[:HAS_CREATOR]->(person:Person)
RETURN person.id, person.firstName, person.lastName
"""
IS6 = f"""
MATCH (:Post:Comment {{id: $messageId}})-[:REPLY_OF*0..{MAX_DEPTH}]->(:Post)<-[:CONTAINER_OF]-(forum:Forum)-[:HAS_MODERATOR]->(moderator:Person)
RETURN forum.id, forum.title, moderator.id, moderator.firstName, moderator.lastName
"""
IS7 = """
MATCH (message:Post:Comment {id: $messageId})-[:HAS_CREATOR]->(author:Person)
MATCH (message)<-[:REPLY_OF]-(comment:Comment)-[:HAS_CREATOR]->(replyAuthor:Person)
RETURN comment.id, comment.content, comment.creationDate AS commentCreationDate,
       replyAuthor.id AS replyAuthorId, replyAuthor.firstName, replyAuthor.lastName,
       EXISTS { MATCH (replyAuthor)-[:KNOWS]-(author) }
ORDER BY commentCreationDate DESC, replyAuthorId ASC
"""


def by_person(query):
    return lambda conn, op: rows_of(conn, query, {"personId": op["person_id"]})


def by_message(query):
    return lambda conn, op: rows_of(conn, query, {"messageId": op["message_id"]})


READS = {
    "IC1": ic1,
    "IC2": ic2,
    "IC3": ic3,
    "IC4": ic4,
    "IC5": ic5,
    "IC6": ic6,
    "IC7": ic7,
    "IC8": ic8,
    "IC9": ic9,
    "IC10": ic10,
    "IC11": ic11,
    "IC12": ic12,
    "IC13": ic13,
    "IC14": ic14,
    "IS1": by_person(IS1),
    "IS2": by_person(IS2),
    "IS3": by_person(IS3),
    "IS4": by_message(IS4),
    "IS5": by_message(IS5),
    "IS6": by_message(IS6),
    "IS7": by_message(IS7),
}


# ---- modes -----------------------------------------------------------------------------------


def params_by_kind(data):
    """params.json's reads by kind, in the specification's order (an array of operations, or
    an object of such arrays, as the driver reads it)."""
    with open(os.path.join(data, "params.json"), encoding="utf-8") as f:
        doc = json.load(f)
    lists = list(doc.values()) if isinstance(doc, dict) else [doc]
    by_kind = {kind: [] for kind in READS}
    for ops in lists:
        for op in ops:
            if op["op"] in by_kind:
                by_kind[op["op"]].append(op)
    return by_kind


def json_value(value):
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    return value


def connect(db_dir):
    db = kuzu.Database(db_dir, read_only=True)
    conn = kuzu.Connection(db)
    conn.execute(f"CALL var_length_extend_max_depth={MAX_DEPTH}")
    return db, conn


def answers(data, db_dir, out_path):
    db, conn = connect(db_dir)
    total = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for kind, ops in params_by_kind(data).items():
            for op in ops:
                rows, error = [], None
                began = time.perf_counter()
                try:
                    rows = READS[kind](conn, op)
                except Exception as e:  # Kuzu refuses the query: report and go on
                    error = str(e).splitlines()[0]
                ms = (time.perf_counter() - began) * 1e3
                line = {"kind": kind, "params": op, "ms": ms, "rows": json_value(rows), "error": error}
                out.write(json.dumps(line) + "\n")
                total += 1
    print(f"# {total} answers written to {out_path}", file=sys.stderr)


def timed(data, db_dir, rounds, per_kind=None):
    db, conn = connect(db_dir)
    for kind, ops in params_by_kind(data).items():
        ops = ops[:per_kind] if per_kind else ops
        if not ops:
            continue
        walls, cpus, error = [], [], None
        for run in range(rounds + 1):  # the first round warms up
            for op in ops:
                t, c = time.perf_counter(), time.process_time()
                try:
                    READS[kind](conn, op)
                except Exception as e:
                    error = str(e).splitlines()[0]
                    break
                wall, cpu = time.perf_counter() - t, time.process_time() - c
                if run > 0:
                    walls.append(wall * 1e3)
                    cpus.append(cpu * 1e3)
            if error:
                break
        if error:
            print(f"{kind}\t0\tn/a\tn/a\terror: {error}", flush=True)
        else:
            print(
                f"{kind}\t{len(walls)}\t{statistics.median(walls):.3f}\t{statistics.median(cpus):.3f}",
                flush=True,
            )


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "load" and len(sys.argv) == 4:
        load(sys.argv[2], sys.argv[3])
    elif mode == "answers" and len(sys.argv) == 5:
        answers(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "timed" and len(sys.argv) in (5, 6):
        timed(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) == 6 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
