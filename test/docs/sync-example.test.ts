import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { addDays, utcToday } from '../../src/domain/dates.js'
import { createStore } from '../../src/storage/db.js'
import { docExample } from '../helpers/doc-examples.js'
import { exitOf, freePort, runBash, waitFor } from '../helpers/processes.js'

/**
 * docs/client.md "Keeping a copy in sync", run as a reader runs it: `npm start` on the embedded
 * demo database in a folder of its own, the banner's three `export PA_…` lines, the recipe saved
 * as sync.ts, and the walkthrough's shell block as written. The folder has a package.json whose
 * scripts `start`, `cli` and `export` run this repository's (as at its root) and this repository's
 * node_modules, so `npm run …` and `npx tsx` resolve as they do there. Then an import changes a
 * day and its analytics.updated event is written (the import's own events are another branch's
 * work), and the next run must re-read exactly that day.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const CLIENT_DOC = join(REPO, 'docs/client.md')
// A bound, not a timing: the walkthrough starts npm scripts and tsx, minutes on a machine held busy.
const WALKTHROUGH_BOUND_MS = 600_000

describe('docs/client.md: the sync recipe and its walkthrough against npm start', () => {
  let dir: string
  let server: ChildProcess
  let banner = ''
  let env: Record<string, string>

  before(async () => {
    // The recipe imports the built client (npm ci builds it; this keeps it current with the sources).
    const build = spawnSync('npm', ['run', 'build', '-w', '@partner-analytics/client'], { cwd: REPO, encoding: 'utf8' })
    assert.equal(build.status, 0, build.stderr)
    dir = mkdtempSync(join(tmpdir(), 'pa-sync-example-'))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({
      private: true,
      type: 'module',
      scripts: {
        start: `tsx ${join(REPO, 'src/cli/main.ts')} serve`,
        cli: `tsx ${join(REPO, 'src/cli/main.ts')}`,
        export: `tsx ${join(REPO, 'packages/client/src/export/main.ts')}`,
      },
    }))
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'))
    writeFileSync(join(dir, 'sync.ts'), docExample(CLIENT_DOC, 'sync.ts') + '\n')
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir }
    // `npm start`, on its own port; its own process group, so that the whole tree stops at the end.
    server = spawn('npm', ['start'], { cwd: dir, env: { ...base, PORT: String(await freePort()) }, detached: true })
    server.stdout?.on('data', () => {})
    server.stderr?.on('data', (chunk: Buffer) => { banner += chunk.toString() })
    await waitFor('the demo banner', () => banner.includes('export PA_API_SECRET_KEY='), 120_000)
    // What the reader pastes: the banner's three export lines.
    env = { ...base, ...Object.fromEntries([...banner.matchAll(/^\s*export (PA_[A-Z_]+)=(\S+)$/gm)].map((match) => [match[1] as string, match[2] as string])) }
    assert.deepEqual(Object.keys(env).filter((name) => name.startsWith('PA_')).sort(), ['PA_API_CLIENT_KEY', 'PA_API_SECRET_KEY', 'PA_BASE_URL'])
  })
  after(async () => {
    if (server?.pid !== undefined) {
      process.kill(-server.pid, 'SIGTERM')
      if (await exitOf(server, 15_000) === undefined) process.kill(-server.pid, 'SIGKILL')
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('runs the walkthrough as written and prints what the document shows', async () => {
    const run = await runBash(docExample(CLIENT_DOC, 'walkthrough'), { cwd: dir, env, boundMs: WALKTHROUGH_BOUND_MS })
    assert.equal(run.code, 0, run.stderr)
    const lines = (run.stdout + run.stderr).split('\n').filter((line) => !line.startsWith('npm warn'))
    const expected = [
      ...[1, 2, 3, 4, 5, 6, 7].map((brand) => new RegExp(`^brand ${brand}: read \\d+ days?$`)),
      /^up to date$/,
      /^evt_\d+ access\.granted: brand 8, read \d+ days?$/,
      /^up to date$/,
      /^\{"id":"evt_\d+","type":"access\.revoked","created_at":"[^"]+","sync_id":null,"data":\{"brand_id":8\}\}$/,
      /^evt_\d+ access\.revoked: brand 8 forgotten$/,
      /^up to date$/,
    ]
    let at = 0
    for (const pattern of expected) {
      const found = lines.findIndex((line, index) => index >= at && pattern.test(line))
      assert.ok(found >= 0, `${pattern.source} not printed (after line ${at}) in:\n${lines.join('\n')}`)
      at = found + 1
    }
    assert.deepEqual(run.stderr.split('\n').filter((line) => line.startsWith('exported')), ['exported 0 events to standard output', 'exported 1 event to standard output'])
    assert.ok(existsSync(join(dir, 'feed.cursor')))
    assert.ok(!existsSync(join(dir, 'sync-state/brand-8.json')), 'brand 8 was forgotten')
    const copy = JSON.parse(readFileSync(join(dir, 'sync-state/brand-4.json'), 'utf8')) as Record<string, { views: number }>
    assert.ok(Object.keys(copy).length > 300)
  })

  it('after an import changes a day, the next run re-reads that day only, and the copy holds the new figures', async () => {
    const store = createStore({ kind: 'sqlite', file: join(dir, 'data/partner-analytics.sqlite') })
    const day = addDays(utcToday(), -3)
    let account: { platform: string, account_id: number }
    try {
      account = await store.db.selectFrom('accounts').select(['platform', 'account_id']).where('brand_id', '=', 4).orderBy('platform').orderBy('account_id').executeTakeFirstOrThrow()
    } finally {
      await store.destroy()
    }
    writeFileSync(join(dir, 'change.csv'), `platform,account_id,date,views,followers\n${account.platform},${account.account_id},${day},987654321,1234\n`)
    const imported = await runBash('npm run --silent cli -- import change.csv', { cwd: dir, env, boundMs: WALKTHROUGH_BOUND_MS })
    assert.equal(imported.code, 0, imported.stderr)
    const before = JSON.parse(readFileSync(join(dir, 'sync-state/brand-4.json'), 'utf8')) as Record<string, { views: number }>
    const run = await runBash('npx tsx sync.ts', { cwd: dir, env, boundMs: WALKTHROUGH_BOUND_MS })
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, new RegExp(`^evt_\\d+ analytics\\.updated: brand 4, re-read ${day} to ${day} \\(1 day\\)\\nup to date\\n$`))
    const after = JSON.parse(readFileSync(join(dir, 'sync-state/brand-4.json'), 'utf8')) as Record<string, { views: number }>
    assert.ok((after[day]?.views ?? 0) >= 987654321, 'the copy has the imported figures')
    assert.notEqual(after[day]?.views, before[day]?.views)
    assert.deepEqual(Object.keys(after).filter((date) => date !== day).map((date) => after[date]), Object.keys(before).filter((date) => date !== day).map((date) => before[date]))
  })
})
