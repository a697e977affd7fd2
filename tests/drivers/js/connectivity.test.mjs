// The official JavaScript driver against Quiver: handshake, authentication, routing, refusal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import neo4j from 'neo4j-driver'
import { PASSWORD, USER, startQuiver, waitUntil } from './quiver.mjs'

// A counter or gauge from the server's Prometheus text at GET /metrics.
async function metric (quiver, name) {
  const text = await (await fetch(`http://${quiver.http}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  assert.ok(line, `${name} not in /metrics`)
  return Number(line.split(' ')[1])
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
  const quiver = await startQuiver({ args: ['--max-connections', '2', '--admin-reserved-connections', '0'] })
  const [host, port] = [quiver.bolt.slice(0, quiver.bolt.lastIndexOf(':')), Number(quiver.bolt.slice(quiver.bolt.lastIndexOf(':') + 1))]
  const holders = await Promise.all([0, 1].map(() => new Promise((resolve) => {
    const socket = net.connect(port, host, () => resolve(socket))
  })))
  // Both raw sockets hold their slots before the driver asks, however late the server's accept
  // loop runs.
  await waitUntil(async () => (await metric(quiver, 'quiver_bolt_connections_active')) === 2)
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
