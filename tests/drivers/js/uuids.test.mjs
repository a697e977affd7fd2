// The official JavaScript driver (6.2+) and Bolt 6.1's UUID type: neo4j.uuid values sent as
// parameters, stored, read back equal; UUIDs built in Cypher arrive as UUIDs.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import neo4j from 'neo4j-driver'

const USER = 'neo4j'
const PASSWORD = 'quiver-test-password'
const TEXT = '550e8400-e29b-41d4-a716-446655440000'

let child
let driver

before(async () => {
  const binary = process.env.QUIVER_BIN ?? 'target/debug/quiver'
  child = spawn(binary, [
    'serve', '--bolt-listen', '127.0.0.1:0', '--http-listen', '127.0.0.1:0', '--in-memory'
  ], {
    env: { ...process.env, QUIVER_AUTH: `${USER}/${PASSWORD}`, QUIVER_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const first = (await lines.next()).value
  assert.ok(first.startsWith('bolt listening on '), first)
  const bolt = first.slice('bolt listening on '.length)
  await lines.next()
  driver = neo4j.driver(`bolt://${bolt}`, neo4j.auth.basic(USER, PASSWORD))
})

after(async () => {
  await driver.close()
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  assert.equal(await exited, 0, 'quiver exits 0 after SIGTERM')
})

test('Bolt 6.1 is negotiated', async () => {
  const info = await driver.getServerInfo()
  assert.ok(info.protocolVersion >= 6.1, `protocol ${info.protocolVersion}`)
})

test('a UUID parameter round-trips through a property', async () => {
  const sent = [neo4j.uuid(TEXT), neo4j.uuid('00000000-0000-0000-0000-000000000000'),
    neo4j.uuid('ffffffff-ffff-ffff-ffff-ffffffffffff')]
  for (const [n, id] of sent.entries()) {
    await driver.executeQuery('CREATE (:Thing {n: $n, id: $id})', { n, id })
  }
  const { records } = await driver.executeQuery(
    'MATCH (t:Thing) RETURN t.id AS id, valueType(t.id) AS type ORDER BY t.n'
  )
  assert.equal(records.length, sent.length)
  for (const [i, record] of records.entries()) {
    const id = record.get('id')
    assert.ok(neo4j.isUUID(id), `record ${i} holds a UUID`)
    assert.equal(id.toString(), sent[i].toString())
    assert.equal(record.get('type'), 'UUID NOT NULL')
  }
})

test('UUIDs built in Cypher arrive as UUIDs', async () => {
  const { records } = await driver.executeQuery(
    `RETURN uuid('${TEXT}') AS parsed, uuid(42, 42) AS halves, randomUUID() AS text`
  )
  const record = records[0]
  assert.ok(neo4j.isUUID(record.get('parsed')))
  assert.equal(record.get('parsed').toString(), TEXT)
  assert.equal(record.get('halves').toString(), '00000000-0000-002a-0000-00000000002a')
  assert.equal(typeof record.get('text'), 'string')
})
