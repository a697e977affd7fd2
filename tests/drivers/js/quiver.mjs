// `quiver serve` for the JavaScript tests: an in-memory server on ephemeral ports, started from
// $QUIVER_BIN (tests/drivers/run.sh and tests/browser/run.sh set it after building). Node's
// built-ins only, so that the browser tests can import it without this folder's packages.
import { before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

export const USER = 'neo4j'
export const PASSWORD = 'quiver-test-password'

// Starts a server with `args` added to the in-memory command line and reads its Bolt and HTTP
// addresses from its first two lines. `stop()` sends SIGTERM and, unless `checkExit` is false,
// asserts that the server exits 0.
export async function startQuiver ({
  args = [],
  password = PASSWORD,
  binary = process.env.QUIVER_BIN ?? 'target/debug/quiver',
  checkExit = true
} = {}) {
  const child = spawn(binary, [
    'serve', '--bolt-listen', '127.0.0.1:0', '--http-listen', '127.0.0.1:0', '--in-memory', ...args
  ], {
    env: { ...process.env, QUIVER_AUTH: `${USER}/${password}`, QUIVER_LOG: 'warn' },
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
    http,
    uri: (scheme = 'bolt') => `${scheme}://${bolt}`,
    async stop () {
      const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
      child.kill('SIGTERM')
      const code = await exited
      if (checkExit) assert.equal(code, 0, 'quiver exits 0 after SIGTERM')
    }
  }
}

// One server for all of a file's tests: registers hooks that start it, with a driver made by
// `connect(quiver)`, before the tests and close the driver and stop the server after them.
// The returned object's `quiver` and `driver` are set once the first hook has run.
export function serveTests (connect) {
  const shared = {}
  before(async () => {
    shared.quiver = await startQuiver()
    shared.driver = connect(shared.quiver)
  })
  after(async () => {
    await shared.driver.close()
    await shared.quiver.stop()
  })
  return shared
}

// Polls `condition` every `intervalMs` until it holds, failing after `timeoutMs`.
export async function waitUntil (condition, timeoutMs = 5000, intervalMs = 20) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  assert.ok(await condition(), 'condition not met before the deadline')
}
