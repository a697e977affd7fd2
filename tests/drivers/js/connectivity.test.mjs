// The official JavaScript driver against Quiver: handshake, authentication, routing, refusal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import net from 'node:net'
import neo4j from 'neo4j-driver'

const USER = 'neo4j'
const PASSWORD = 'quiver-test-password'

async function startQuiver (...extra) {
  const binary = process.env.QUIVER_BIN ?? 'target/debug/quiver'
  const child = spawn(binary, [
    'serve', '--bolt-listen', '127.0.0.1:0', '--http-listen', '127.0.0.1:0', '--in-memory', ...extra
  ], {
    env: { ...process.env, QUIVER_AUTH: `${USER}/${PASSWORD}`, QUIVER_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const address = async (prefix) => {
    const { value } = await lines.next()
    assert.ok(value.startsWith(prefix), `unexpected start-up line: ${value}`)
    return value.slice(prefix.length)
  }
  const bolt = await address('bolt listening on ')
  const http = await address('http listening on ')
  return {
    bolt,
    // A counter or gauge from the server's Prometheus text at GET /metrics.
    async metric (name) {
      const text = await (await fetch(`http://${http}/metrics`)).text()
      const line = text.split('\n').find((l) => l.startsWith(`${name} `))
      assert.ok(line, `${name} not in /metrics`)
      return Number(line.split(' ')[1])
    },
    uri: (scheme = 'bolt') => `${scheme}://${bolt}`,
    async stop () {
      const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
      child.kill('SIGTERM')
      assert.equal(await exited, 0, 'quiver exits 0 after SIGTERM')
    }
  }
}

async function waitUntil (condition, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.ok(await condition(), 'condition not met before the deadline')
}

for (const scheme of ['bolt', 'neo4j']) {
  test(`verifyConnectivity over ${scheme}://`, async () => {
    const quiver = await startQuiver()
    const driver = neo4j.driver(quiver.uri(scheme), neo4j.auth.basic(USER, PASSWORD))
    try {
      const info = await driver.getServerInfo()
      assert.ok(info.agent.startsWith('Neo4j/'), info.agent)
      assert.ok(info.protocolVersion >= 5.0, String(info.protocolVersion))
    } finally {
      await driver.close()
      await quiver.stop()
    }
  })
}

test('a wrong password is Neo.ClientError.Security.Unauthorized', async () => {
  const quiver = await startQuiver()
  const driver = neo4j.driver(quiver.uri(), neo4j.auth.basic(USER, 'wrong'))
  try {
    await assert.rejects(driver.verifyConnectivity(), (error) => {
      assert.equal(error.code, 'Neo.ClientError.Security.Unauthorized')
      return true
    })
  } finally {
    await driver.close()
    await quiver.stop()
  }
})

test('past max connections the refusal is a transient error naming the limit', async () => {
  const quiver = await startQuiver('--max-connections', '2', '--admin-reserved-connections', '0')
  const [host, port] = [quiver.bolt.slice(0, quiver.bolt.lastIndexOf(':')), Number(quiver.bolt.slice(quiver.bolt.lastIndexOf(':') + 1))]
  const holders = await Promise.all([0, 1].map(() => new Promise((resolve) => {
    const socket = net.connect(port, host, () => resolve(socket))
  })))
  // Both raw sockets hold their slots before the driver asks, however late the server's accept
  // loop runs.
  await waitUntil(async () => (await quiver.metric('quiver_bolt_connections_active')) === 2)
  const driver = neo4j.driver(quiver.uri(), neo4j.auth.basic(USER, PASSWORD))
  try {
    await assert.rejects(driver.verifyConnectivity(), (error) => {
      assert.equal(error.code, 'Neo.TransientError.General.ServiceUnavailable', error.message)
      assert.match(error.message, /limit of 2/)
      return true
    })
  } finally {
    await driver.close()
    for (const socket of holders) socket.destroy()
    await quiver.stop()
  }
})

test('an unknown user is an authentication error of the driver\'s own class', async () => {
  const quiver = await startQuiver()
  const driver = neo4j.driver(quiver.uri(), neo4j.auth.basic('nobody', PASSWORD))
  try {
    await assert.rejects(driver.verifyConnectivity(), (error) => {
      assert.ok(error instanceof neo4j.Neo4jError, String(error))
      assert.equal(error.code, 'Neo.ClientError.Security.Unauthorized')
      return true
    })
  } finally {
    await driver.close()
    await quiver.stop()
  }
})
