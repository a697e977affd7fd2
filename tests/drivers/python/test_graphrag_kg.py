"""neo4j-graphrag's knowledge-graph builder against Quiver: `SimpleKGPipeline` splits a text
into chunks, embeds them, asks an LLM for the entities and relationships of each chunk, and its
`Neo4jWriter` writes the lexical graph (Document, Chunk, NEXT_CHUNK, FROM_DOCUMENT, FROM_CHUNK)
and the extracted graph (`__KGBuilder__` and `__Entity__` nodes, the relationships between
them, merged by the writer with `start` and `end` as variable names), then resolves entities
that share a label and name with `apoc.refactor.mergeNodes`.

The LLM and the embedder are deterministic stand-ins: no model, no network. The pipeline's own
code, queries and writer are the real ones. tests/drivers/run.sh installs neo4j-graphrag
(pinned) in a venv of its own and runs this file there (QUIVER_EXPECT_LIBRARIES=1, where a
missing package fails); the driver venvs skip it.
"""

import asyncio
import json
import os
import random

import pytest
from neo4j import GraphDatabase

from conftest import PASSWORD, USER

if os.environ.get("QUIVER_EXPECT_LIBRARIES") == "1":
    import neo4j_graphrag  # noqa: F401
else:
    pytest.importorskip("neo4j_graphrag")

from neo4j_graphrag.components.text_splitters.fixed_size_splitter import (  # noqa: E402
    FixedSizeSplitter,
)
from neo4j_graphrag.embeddings.base import Embedder  # noqa: E402
from neo4j_graphrag.experimental.pipeline.kg_builder import SimpleKGPipeline  # noqa: E402
from neo4j_graphrag.llm.base import LLMInterface  # noqa: E402
from neo4j_graphrag.llm.types import LLMResponse  # noqa: E402

DIMENSIONS = 8

# Two chunks of the text (the splitter cuts exactly at CHUNK_SIZE characters, no overlap).
# Alice and Paris are in both, so entity resolution has two of each to merge.
FIRST = "Alice works at Acme in Paris. "
SECOND = "Alice knows Bob from Paris."
TEXT = FIRST + SECOND
CHUNK_SIZE = len(FIRST)
assert len(SECOND) <= CHUNK_SIZE

# What the stand-in LLM extracts from each chunk, in neo4j-graphrag's JSON format.
EXTRACTIONS = {
    FIRST: {
        "nodes": [
            {"id": "0", "label": "Person", "properties": {"name": "Alice"}},
            {"id": "1", "label": "Company", "properties": {"name": "Acme"}},
            {"id": "2", "label": "City", "properties": {"name": "Paris"}},
        ],
        "relationships": [
            {"type": "WORKS_AT", "start_node_id": "0", "end_node_id": "1", "properties": {}},
            {
                "type": "LOCATED_IN",
                "start_node_id": "1",
                "end_node_id": "2",
                "properties": {"since": 1999},
            },
        ],
    },
    SECOND: {
        "nodes": [
            {"id": "0", "label": "Person", "properties": {"name": "Alice"}},
            {"id": "1", "label": "Person", "properties": {"name": "Bob"}},
            {"id": "2", "label": "City", "properties": {"name": "Paris"}},
        ],
        "relationships": [
            {"type": "KNOWS", "start_node_id": "0", "end_node_id": "1", "properties": {}},
            {"type": "LIVES_IN", "start_node_id": "1", "end_node_id": "2", "properties": {}},
        ],
    },
}


def embed(text):
    """The same text, the same vector."""
    rng = random.Random(text)
    return [rng.uniform(-1.0, 1.0) for _ in range(DIMENSIONS)]


class FakeEmbedder(Embedder):
    def embed_query(self, text):
        return embed(text)


class FakeLLM(LLMInterface):
    """Answers the extraction prompt with the fixed extraction of the chunk the prompt holds."""

    def __init__(self):
        super().__init__(model_name="fixed-extractions")
        self.prompts = []

    def invoke(self, input, message_history=None, system_instruction=None):
        self.prompts.append(input)
        chunks = [chunk for chunk in EXTRACTIONS if chunk in input]
        assert len(chunks) == 1, f"the prompt should hold exactly one known chunk: {input!r}"
        return LLMResponse(content=json.dumps(EXTRACTIONS[chunks[0]]))

    async def ainvoke(self, input, message_history=None, system_instruction=None):
        return self.invoke(input, message_history, system_instruction)


def run_pipeline(quiver):
    """Runs the whole pipeline once and returns the LLM (with the prompts it saw)."""
    llm = FakeLLM()
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        pipeline = SimpleKGPipeline(
            llm=llm,
            driver=driver,
            embedder=FakeEmbedder(),
            from_file=False,
            text_splitter=FixedSizeSplitter(chunk_size=CHUNK_SIZE, chunk_overlap=0, approximate=False),
            schema="FREE",
            on_error="RAISE",
        )
        asyncio.run(pipeline.run_async(text=TEXT, file_path="notes.txt"))
    return llm


def read(quiver, query, **parameters):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        records, _, _ = driver.execute_query(query, parameters)
        return [record.data() for record in records]


def test_the_pipeline_writes_the_lexical_graph_with_embedded_chunks(quiver):
    llm = run_pipeline(quiver)
    assert len(llm.prompts) == 2

    documents = read(quiver, "MATCH (d:Document) RETURN d.path AS path")
    assert documents == [{"path": "notes.txt"}]
    chunks = read(
        quiver,
        "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {path: 'notes.txt'}) "
        "RETURN c.index AS index, c.text AS text, c.embedding AS embedding ORDER BY index",
    )
    assert [(c["index"], c["text"]) for c in chunks] == [(0, FIRST), (1, SECOND)]
    for chunk in chunks:
        assert chunk["embedding"] == pytest.approx(embed(chunk["text"]))
    chain = read(
        quiver,
        "MATCH (a:Chunk)-[:NEXT_CHUNK]->(b:Chunk) RETURN a.index AS a, b.index AS b",
    )
    assert chain == [{"a": 0, "b": 1}]


def test_the_pipeline_writes_and_resolves_the_extracted_graph(quiver):
    run_pipeline(quiver)

    entities = read(
        quiver,
        "MATCH (e:__KGBuilder__:__Entity__) "
        "RETURN [l IN labels(e) WHERE NOT l STARTS WITH '__'] AS labels, e.name AS name "
        "ORDER BY name",
    )
    # Alice and Paris, extracted from both chunks, are resolved into one node each.
    assert entities == [
        {"labels": ["Company"], "name": "Acme"},
        {"labels": ["Person"], "name": "Alice"},
        {"labels": ["Person"], "name": "Bob"},
        {"labels": ["City"], "name": "Paris"},
    ]
    relationships = read(
        quiver,
        "MATCH (start:__Entity__)-[r]->(end:__Entity__) "
        "RETURN start.name AS start, type(r) AS type, end.name AS end, r.since AS since "
        "ORDER BY start, type",
    )
    assert relationships == [
        {"start": "Acme", "type": "LOCATED_IN", "end": "Paris", "since": 1999},
        {"start": "Alice", "type": "KNOWS", "end": "Bob", "since": None},
        {"start": "Alice", "type": "WORKS_AT", "end": "Acme", "since": None},
        {"start": "Bob", "type": "LIVES_IN", "end": "Paris", "since": None},
    ]
    # Each entity points at the chunks it was extracted from.
    sources = read(
        quiver,
        "MATCH (e:__Entity__)-[:FROM_CHUNK]->(c:Chunk) "
        "RETURN e.name AS name, collect(c.index) AS chunks ORDER BY name",
    )
    assert [(s["name"], sorted(s["chunks"])) for s in sources] == [
        ("Acme", [0]),
        ("Alice", [0, 1]),
        ("Bob", [1]),
        ("Paris", [0, 1]),
    ]
