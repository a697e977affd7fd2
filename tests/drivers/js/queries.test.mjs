// The official JavaScript driver running queries against Quiver: transactions, retries,
// streaming, every value type, errors, bookmarks, routing and the procedures tools call.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import neo4j from 'neo4j-driver'
import { PASSWORD, USER, serveTests } from './quiver.mjs'

const server = serveTests((quiver) => neo4j.driver(quiver.uri(), neo4j.auth.basic(USER, PASSWORD)))

test('auto-commit and explicit transactions', async () => {
  const session = server.driver.session()
  try {
    const one = await session.run('RETURN 1 AS one')
    assert.equal(one.records[0].get('one').toNumber(), 1)
    const created = await session.run("CREATE (:Js {name: 'a'}), (:Js {name: 'b'})")
    assert.equal(created.summary.counters.updates().nodesCreated, 2)
    const tx = session.beginTransaction()
    await tx.run("CREATE (:Js {name: 'c'})")
    const names = await tx.run('MATCH (n:Js) RETURN n.name AS name ORDER BY name')
    assert.deepEqual(names.records.map((r) => r.get('name')), ['a', 'b', 'c'])
    await tx.commit()
    const rolled = session.beginTransaction()
    await rolled.run("CREATE (:Js {name: 'never'})")
    await rolled.rollback()
    const count = await session.run('MATCH (n:Js) RETURN count(n) AS c')
    assert.equal(count.records[0].get('c').toNumber(), 3)
  } finally {
    await session.close()
  }
})

test('a managed transaction is retried after a write conflict', async () => {
  await server.driver.executeQuery('CREATE (:JsAccount {id: 1, balance: 0})')
  const blockerSession = server.driver.session()
  const blocker = blockerSession.beginTransaction()
  await blocker.run('MATCH (a:JsAccount {id: 1}) SET a.balance = 100')
  let attempts = 0
  const session = server.driver.session()
  try {
    await session.executeWrite(async (tx) => {
      attempts += 1
      // The first attempt meets the open blocker and fails retryably; only then does the
      // blocker commit, so a later attempt succeeds.
      if (attempts === 2) await blocker.commit()
      await tx.run('MATCH (a:JsAccount {id: 1}) SET a.balance = a.balance + 1')
    })
  } finally {
    await session.close()
    await blockerSession.close()
  }
  assert.ok(attempts >= 2, `attempts: ${attempts}`)
  const { records } = await server.driver.executeQuery('MATCH (a:JsAccount {id: 1}) RETURN a.balance AS b')
  assert.equal(records[0].get('b').toNumber(), 101)
})

test('large results stream with a small fetch size', async () => {
  const session = server.driver.session({ fetchSize: 5 })
  try {
    let seen = 0
    const result = session.run('UNWIND range(1, 20000) AS i RETURN i')
    for await (const record of result) {
      seen += 1
      assert.equal(record.get('i').toNumber(), seen)
    }
    assert.equal(seen, 20000)
  } finally {
    await session.close()
  }
})

test('every value type round-trips', async () => {
  const values = [
    null,
    true,
    neo4j.int(-42),
    neo4j.int('9007199254740993'),
    2.5,
    'ünïcödé 😀',
    new Int8Array([0, 1, -2, 127]),
    [neo4j.int(1), 'two', [3.5, null]],
    { a: neo4j.int(1), b: [true, { c: 'd' }] },
    new neo4j.types.Date(2024, 2, 29),
    new neo4j.types.LocalTime(23, 59, 59, 999999999),
    new neo4j.types.Time(8, 0, 0, 0, 7200),
    new neo4j.types.LocalDateTime(2001, 9, 9, 1, 46, 40, 123456789),
    new neo4j.types.DateTime(2020, 1, 1, 0, 0, 0, 0, -18000),
    new neo4j.types.DateTime(2024, 7, 1, 12, 30, 15, 123456789, undefined, 'Europe/Paris'),
    new neo4j.types.Duration(14, 3, 4000, 5),
    new neo4j.types.Point(7203, 1.5, -2.0),
    new neo4j.types.Point(9157, 1.0, 2.0, 3.0),
    new neo4j.types.Point(4326, 13.4, 52.5),
    new neo4j.types.Point(4979, 13.4, 52.5, 34.0)
  ]
  for (const value of values) {
    const { records } = await server.driver.executeQuery('RETURN $v AS v', { v: value })
    const got = records[0].get('v')
    assert.deepEqual(normalise(got), normalise(value), `round trip of ${String(value)}`)
  }
  const { records } = await server.driver.executeQuery(
    "RETURN datetime({year: 2024, month: 7, day: 1, hour: 12, timezone: 'Europe/Paris'}) AS d")
  const zoned = records[0].get('d')
  assert.equal(zoned.timeZoneId, 'Europe/Paris')
  assert.equal(zoned.timeZoneOffsetSeconds?.toNumber?.() ?? zoned.timeZoneOffsetSeconds, 7200)
})

// Comparable form of a value. Integers keep their kind (a float never equals an Integer); the
// fields of temporal and spatial values, which the driver returns as Integers whatever they were
// built from, compare by their numeric value.
function normalise (value, inStruct = false) {
  if (neo4j.isInt(value)) return `int ${value.toString()}`
  if (typeof value === 'number' && inStruct) return Number.isInteger(value) ? `int ${value}` : value
  if (value instanceof Int8Array) return Array.from(value)
  if (Array.isArray(value)) return value.map((v) => normalise(v))
  if (value === null || typeof value !== 'object') return value
  const struct = Object.getPrototypeOf(value) !== Object.prototype
  const out = {}
  for (const [k, v] of Object.entries(value)) {
    // The offset of a zoned date-time is the server's to compute.
    if (k === 'timeZoneOffsetSeconds' && value.timeZoneId) continue
    out[k] = normalise(v, struct)
  }
  if (struct) out.kind = value.constructor.name
  return out
}

test('nodes, relationships and paths', async () => {
  const { records } = await server.driver.executeQuery(
    "CREATE p = (a:JsPerson {name: 'Ann'})-[r:KNOWS {since: 2020}]->(b:JsPerson {name: 'Bob'}) RETURN a, r, b, p")
  const [a, r, b, p] = ['a', 'r', 'b', 'p'].map((k) => records[0].get(k))
  assert.ok(neo4j.isNode(a))
  assert.deepEqual(a.labels, ['JsPerson'])
  assert.equal(a.properties.name, 'Ann')
  assert.ok(neo4j.isRelationship(r))
  assert.equal(r.type, 'KNOWS')
  assert.equal(r.startNodeElementId, a.elementId)
  assert.equal(r.endNodeElementId, b.elementId)
  assert.ok(neo4j.isPath(p))
  assert.equal(p.length, 1)
  assert.equal(p.start.elementId, a.elementId)
})

test('errors carry Neo4j codes and the session recovers', async () => {
  const session = server.driver.session()
  try {
    await assert.rejects(session.run('RETURN 1 +'), (error) => {
      assert.equal(error.code, 'Neo.ClientError.Statement.SyntaxError')
      return true
    })
    const again = await session.run('RETURN 2 AS two')
    assert.equal(again.records[0].get('two').toNumber(), 2)
  } finally {
    await session.close()
  }
})

test('bookmarks give causal consistency', async () => {
  const writer = server.driver.session()
  await writer.run('CREATE (:JsEvent)')
  const bookmarks = writer.lastBookmarks()
  await writer.close()
  assert.ok(bookmarks.length > 0)
  const reader = server.driver.session({ bookmarks, defaultAccessMode: neo4j.session.READ })
  try {
    const { records } = await reader.run('MATCH (e:JsEvent) RETURN count(e) AS c')
    assert.equal(records[0].get('c').toNumber(), 1)
  } finally {
    await reader.close()
  }
})

test('neo4j:// routes reads and writes to the single server', async () => {
  const routed = neo4j.driver(server.quiver.uri('neo4j'), neo4j.auth.basic(USER, PASSWORD))
  try {
    await routed.executeQuery('CREATE (:JsRouted)')
    const { records } = await routed.executeQuery('MATCH (r:JsRouted) RETURN count(r) AS c', {},
      { routing: neo4j.routing.READ })
    assert.equal(records[0].get('c').toNumber(), 1)
  } finally {
    await routed.close()
  }
})

test('db.ping and dbms.components answer like Neo4j', async () => {
  const ping = await server.driver.executeQuery('CALL db.ping()')
  assert.equal(ping.records[0].get('success'), true)
  const components = await server.driver.executeQuery('CALL dbms.components()')
  assert.equal(components.records[0].get('name'), 'Neo4j Kernel')
})

test('errors are the driver\'s own Neo4jError, transient ones retryable', async () => {
  await assert.rejects(server.driver.executeQuery('RETURN 1 +'), (error) => {
    assert.ok(error instanceof neo4j.Neo4jError, String(error))
    assert.equal(error.code, 'Neo.ClientError.Statement.SyntaxError')
    assert.equal(neo4j.isRetryableError(error), false)
    return true
  })
  await assert.rejects(server.driver.executeQuery('RETURN $missing'), (error) => {
    assert.ok(error instanceof neo4j.Neo4jError)
    assert.equal(error.code, 'Neo.ClientError.Statement.ParameterMissing')
    return true
  })
  await server.driver.executeQuery('CREATE (:JsLock {id: 1})')
  const holderSession = server.driver.session()
  const other = server.driver.session()
  const holder = holderSession.beginTransaction()
  try {
    await holder.run('MATCH (l:JsLock {id: 1}) SET l.v = 1')
    await assert.rejects(other.run('MATCH (l:JsLock {id: 1}) SET l.v = 2'), (error) => {
      assert.ok(error instanceof neo4j.Neo4jError)
      assert.match(error.code, /^Neo\.TransientError\.Transaction\./)
      assert.equal(neo4j.isRetryableError(error), true)
      return true
    })
  } finally {
    await holder.rollback()
    await holderSession.close()
    await other.close()
  }
})

test('a failed explicit transaction is reset and the session goes on', async () => {
  const session = server.driver.session()
  try {
    const tx = session.beginTransaction()
    await tx.run('CREATE (:JsDoomed)')
    await assert.rejects(tx.run('RETURN 1 / 0'), (error) => {
      assert.ok(error instanceof neo4j.Neo4jError)
      assert.match(error.code, /^Neo\.ClientError\./)
      return true
    })
    await tx.close()
    const after = await session.run('MATCH (d:JsDoomed) RETURN count(d) AS c')
    assert.equal(after.records[0].get('c').toNumber(), 0)
  } finally {
    await session.close()
  }
})

test('read sessions refuse writes with Neo4j\'s access-mode error', async () => {
  const session = server.driver.session({ defaultAccessMode: neo4j.session.READ })
  try {
    await assert.rejects(session.executeRead((tx) => tx.run('CREATE (:JsNope)')), (error) => {
      assert.equal(error.code, 'Neo.ClientError.Statement.AccessMode')
      return true
    })
    const read = await session.executeRead((tx) => tx.run('RETURN 7 AS x'))
    assert.equal(read.records[0].get('x').toNumber(), 7)
  } finally {
    await session.close()
  }
})

test('transaction metadata is visible and the timeout is enforced', async () => {
  const session = server.driver.session()
  const observer = server.driver.session()
  try {
    const tx = session.beginTransaction({ metadata: { app: 'js-reports' }, timeout: 30000 })
    await tx.run('RETURN 1')
    const shown = await observer.run('SHOW TRANSACTIONS YIELD metaData RETURN metaData')
    assert.ok(shown.records.some((r) => r.get('metaData').app === 'js-reports'))
    await tx.rollback()
    const started = Date.now()
    await assert.rejects(session.run(
      'UNWIND range(1, 5000) AS a UNWIND range(1, 5000) AS b WITH a, b WHERE a + b < 0 RETURN count(*)',
      {}, { timeout: 200 }), (error) => {
      assert.equal(error.code, 'Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration')
      return true
    })
    assert.ok(Date.now() - started < 5000)
  } finally {
    await session.close()
    await observer.close()
  }
})

test('streams of one transaction interleave with a small fetch size', async () => {
  const session = server.driver.session({ fetchSize: 3 })
  try {
    const tx = session.beginTransaction()
    const a = tx.run('UNWIND range(1, 10) AS i RETURN i')
    const b = tx.run('UNWIND range(11, 20) AS i RETURN i')
    const bs = []
    for await (const r of b) bs.push(r.get('i').toNumber())
    const as = []
    for await (const r of a) as.push(r.get('i').toNumber())
    assert.deepEqual(bs, Array.from({ length: 10 }, (_, i) => i + 11))
    assert.deepEqual(as, Array.from({ length: 10 }, (_, i) => i + 1))
    await tx.commit()
  } finally {
    await session.close()
  }
})

test('a bookmark manager chains executeQuery calls', async () => {
  const manager = neo4j.bookmarkManager()
  await server.driver.executeQuery('CREATE (:JsChained)', {}, { bookmarkManager: manager })
  const { records } = await server.driver.executeQuery('MATCH (c:JsChained) RETURN count(c) AS c', {},
    { bookmarkManager: manager, routing: neo4j.routing.READ })
  assert.equal(records[0].get('c').toNumber(), 1)
})

test('EXPLAIN and PROFILE plans reach summary.plan and summary.profile', async () => {
  const session = server.driver.session()
  try {
    await session.run('UNWIND range(1, 5) AS i CREATE (:JsPlanned {i: i})')
    const query = 'MATCH (p:JsPlanned) WHERE p.i > 2 RETURN p.i AS i'
    const explained = await session.run(`EXPLAIN ${query}`)
    assert.equal(explained.records.length, 0)
    assert.ok(explained.summary.hasPlan())
    assert.ok(!explained.summary.hasProfile())
    const plan = explained.summary.plan
    assert.equal(plan.operatorType, 'ProduceResults')
    assert.ok(plan.identifiers.includes('i'), plan.identifiers)
    assert.equal(plan.arguments.planner, 'COST')
    assert.ok(plan.children.length > 0)

    const profiled = await session.run(`PROFILE ${query}`)
    assert.equal(profiled.records.length, 3)
    assert.ok(profiled.summary.hasProfile())
    const root = profiled.summary.profile
    assert.equal(root.operatorType, 'ProduceResults')
    assert.equal(root.rows, 3)
    let scan = root
    while (scan.operatorType !== 'NodeByLabelScan') scan = scan.children[0]
    assert.equal(scan.rows, 5)
    assert.equal(scan.dbHits, 5)
    assert.ok(scan.time >= 0)
    assert.equal(scan.arguments.Details, ':JsPlanned')
  } finally {
    await session.close()
  }
})
