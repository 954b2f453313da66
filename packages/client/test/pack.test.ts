import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { globSync } from 'glob'
import type { AnalyticsDataset } from '../../../test/helpers/analytics-fixtures.js'
import { DIALECTS } from '../../../test/helpers/stores.js'
import { lockfileForTarball, type Lockfile } from './offline-install.js'
import { startServer } from './server.js'

/**
 * What a partner gets: `npm pack -w @partner-analytics/client` (which builds through `prepack`),
 * the tarball installed into a project made by `npm init -y` (CommonJS) with no access to this
 * repository's sources or node_modules and no install script to review, the README's snippet
 * type-checked against the installed .d.ts as CommonJS and as an ES module and run against a real
 * server both ways and through tsx, and the installed bin run. Installing is offline
 * (offline-install.ts).
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const CLIENT = join(REPO, 'packages', 'client')
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs')

interface Run { code: number | null, stdout: string, stderr: string }

/** A child process without blocking the event loop: the servers these runs talk to live in this process. */
async function run (command: string, args: string[], options: { cwd: string, env?: Record<string, string> }): Promise<Run> {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const code = await new Promise<number | null>((resolve, reject) => { child.once('error', reject).once('close', resolve) })
  return { code, stdout, stderr }
}

function assertSucceeded (result: Run, what: string): void {
  assert.equal(result.code, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`)
}

/** The README's client snippet: its one ```ts block importing the package. */
function readmeSnippet (): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '').filter((block) => block.includes('from \'@partner-analytics/client\''))
  assert.equal(blocks.length, 1, 'README.md has exactly one ```ts block importing @partner-analytics/client')
  return blocks[0] as string
}

/** What the snippet prints, computed from the raw rows: brands, then one line per (date, brand, platform) group, latest first. */
function expectedSnippetOutput (dataset: AnalyticsDataset, since: string, until: string): string {
  const granted = [1, 2]
  const platforms = ['fb', 'ig']
  const brandOf = new Map(dataset.accounts.map((account) => [`${account.platform}:${account.account_id}`, account.brand_id]))
  const views = new Map<string, number>()
  for (const row of dataset.daily) {
    const brand = brandOf.get(`${row.platform}:${row.account_id}`) ?? 0
    if (!granted.includes(brand) || !platforms.includes(row.platform) || row.date < since || row.date > until) continue
    const key = `${row.date} ${brand} ${platforms.indexOf(row.platform)}`
    views.set(key, (views.get(key) ?? 0) + (row.views ?? 0))
  }
  const entries = [...views].map(([key, sum]) => { const [date, brand, rank] = key.split(' '); return { date: date as string, brand: Number(brand), rank: Number(rank), sum } })
  entries.sort((a, b) => b.date.localeCompare(a.date) || a.brand - b.brand || a.rank - b.rank)
  const brands = dataset.brands.filter((brand) => granted.includes(brand.brand_id)).map((brand) => `${brand.brand_id} ${brand.brand_name}`)
  return [...brands, ...entries.map((entry) => `${entry.date} ${platforms[entry.rank]} ${entry.sum}`)].join('\n') + '\n'
}

/** Every file the tarball must hold: each source module as JS and declarations, and nothing else. */
function expectedTarballFiles (): string[] {
  const modules = globSync('src/**/*.ts', { cwd: CLIENT, posix: true }).map((file) => file.slice('src/'.length, -'.ts'.length))
  return [
    'README.md', 'bin/partner-analytics-export.js', 'openapi.json', 'package.json',
    ...modules.flatMap((module) => [`dist/${module}.d.ts`, `dist/${module}.js`]),
  ].sort()
}

describe('the packed client, installed into a fresh project', { timeout: 300_000 }, () => {
  let work: string
  let project: string
  let packedFiles: string[]
  let projectType: string | undefined
  let installed: Run
  const snippet = readmeSnippet()
  const period = /since: '(\d{4}-\d{2}-\d{2})', until: '(\d{4}-\d{2}-\d{2})', platform: \['fb', 'ig'\]/.exec(snippet)

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'pa-pack-'))
    const packed = await run('npm', ['pack', '-w', '@partner-analytics/client', '--pack-destination', work, '--json'], { cwd: REPO })
    assertSucceeded(packed, 'npm pack')
    const [summary] = JSON.parse(packed.stdout) as Array<{ filename: string, files: Array<{ path: string }> }>
    assert.ok(summary !== undefined)
    packedFiles = summary.files.map((file) => file.path).sort()

    // A newcomer's project: what `npm init -y` makes (CommonJS), then the tarball installed the way
    // the README says, offline (offline-install.ts: the lock pins what the repository tests).
    project = join(work, 'project')
    mkdirSync(project)
    assertSucceeded(await run('npm', ['init', '-y'], { cwd: project }), 'npm init -y')
    projectType = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { type?: string }).type
    const spec = `file:../${summary.filename}`
    const rootLock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as Lockfile
    const registry = (await run('npm', ['config', 'get', 'registry'], { cwd: project })).stdout.trim()
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockfileForTarball(rootLock, spec, registry), null, 2))
    installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', `../${summary.filename}`], { cwd: project })
    assertSucceeded(installed, 'npm install --offline of the tarball')

    // The snippet as CommonJS (the project's type) and as an ES module, compiled by a partner's strict
    // TypeScript setup with only what the tarball brought (plus Node's types).
    writeFileSync(join(project, 'snippet.ts'), snippet)
    writeFileSync(join(project, 'snippet.mts'), snippet)
    const compiled = await run(process.execPath, [TSC, 'snippet.ts', 'snippet.mts', '--strict', '--module', 'nodenext', '--target', 'es2022',
      '--types', 'node', '--typeRoots', join(REPO, 'node_modules', '@types'), '--skipLibCheck', '--outDir', '.'], { cwd: project })
    assertSucceeded(compiled, 'tsc on the README snippet')
  })
  after(() => { rmSync(work, { recursive: true, force: true }) })

  it('holds dist (JS and .d.ts), the bin, README.md, openapi.json and package.json: no tests, sources, maps, scripts or tsconfig', () => {
    assert.deepEqual(packedFiles, expectedTarballFiles())
  })

  it('installs into a CommonJS project made by npm init -y, with no install script to review', () => {
    assert.ok(projectType === 'commonjs' || projectType === undefined, `npm init -y wrote "type": ${String(projectType)}`)
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', '@partner-analytics', 'client', 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
    const installTime = Object.keys(manifest.scripts ?? {}).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))
    assert.deepEqual(installTime, [], 'the published package.json has no install-time lifecycle script')
    assert.doesNotMatch(installed.stdout + installed.stderr, /install.?scripts?/i)
  })

  it('ships the same snippet in its own README', () => {
    const packageReadme = readFileSync(join(project, 'node_modules', '@partner-analytics', 'client', 'README.md'), 'utf8')
    assert.ok(packageReadme.includes('```ts\n' + snippet + '```'), 'packages/client/README.md and README.md show the same client snippet')
  })

  it('installs no file from this repository: the client and its dependencies are copies in the project', () => {
    assert.deepEqual(readdirSync(join(project, 'node_modules')).sort(), ['.bin', '.package-lock.json', '@partner-analytics', 'ansi-regex', 'cli-progress', 'commander', 'emoji-regex', 'is-fullwidth-code-point', 'string-width', 'strip-ansi'])
    assert.deepEqual(readdirSync(join(project, 'node_modules', '.bin')), ['partner-analytics-export'])
  })

  it('runs the installed bin: --help', async () => {
    const help = await run(join(project, 'node_modules', '.bin', 'partner-analytics-export'), ['--help'], { cwd: project })
    assert.equal(help.code, 0)
    assert.match(help.stderr, /^Usage: partner-analytics-export \[options\] \[command\]\n/)
    assert.match(help.stderr, /\n {2}analytics \[options\] +daily, monthly or agg analytics/)
  })

  for (const dialect of DIALECTS) {
    it(`runs the README snippet and the bin against a running server (${dialect})`, async () => {
      assert.ok(period !== null, 'the snippet reads daily entries of fb and ig between two literal dates')
      const server = await startServer(dialect)
      try {
        const env = { PA_BASE_URL: server.baseUrl, PA_API_CLIENT_KEY: server.partner.clientKey, PA_API_SECRET_KEY: server.partner.secretKey }
        const expected = expectedSnippetOutput(server.dataset, period[1] as string, period[2] as string)
        assert.ok(expected.split('\n').length > 24, 'more than one page of daily entries')
        // Compiled as CommonJS and as an ES module, and run by tsx in the CommonJS project as a newcomer does.
        for (const [label, args] of [['compiled as CommonJS', ['snippet.js']], ['compiled as an ES module', ['snippet.mjs']], ['run by tsx', [TSX, 'snippet.ts']]] as const) {
          const output = await run(process.execPath, [...args], { cwd: project, env })
          assertSucceeded(output, `the README snippet ${label}`)
          assert.equal(output.stdout, expected, label)
          assert.equal(output.stderr, '', label)
        }

        const exported = await run(join(project, 'node_modules', '.bin', 'partner-analytics-export'), ['analytics', '--type', 'agg', '--format', 'json', '--since', period[1] as string, '--until', period[2] as string], { cwd: project, env })
        assertSucceeded(exported, 'partner-analytics-export analytics --type agg')
        assert.deepEqual(Object.keys((JSON.parse(exported.stdout) as { aggregates: object }).aggregates), ['total', 'average'])
        assert.equal(exported.stderr, 'exported 2 rows and the aggregates (total, average) to standard output\n')
      } finally {
        await server.close()
      }
    })
  }
})
