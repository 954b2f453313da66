import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { globSync } from 'glob'

/**
 * The documentation must stand on its own in a clone: every link stays inside the repository and
 * points at a file (and heading) that exists, and nothing refers to material a clone does not have.
 * Example hosts (RFC 2606: example.com, *.example) and loopback addresses are allowed in URLs,
 * since examples need an address; no other host is.
 */

const REPO = resolve(fileURLToPath(new URL('../../', import.meta.url)))
const DOCUMENTS = ['README.md', ...globSync('docs/**/*.md', { cwd: REPO, posix: true }).sort(), 'packages/client/README.md', 'clients/python/README.md']
/** Ship inside the npm tarball and the Python wheel, where the repository's other files are not: anchors only. */
const PACKAGED = new Set(['packages/client/README.md', 'clients/python/README.md'])
const ALLOWED_HOST = /^(localhost|127\.0\.0\.1|\[::1\]|(?:[a-z0-9-]+\.)*example(?:\.(?:com|org|net))?)(?::\d+)?$/i
/** Material outside the repository that documents once pointed at. */
const FORBIDDEN_TEXT = [/\.\.\/shared/, /\bSPEC\.md\b/, /\bDECISIONS\.md\b/]

interface Prose { line: number, text: string }

/** The lines outside fenced code blocks, as written. */
function linesOutsideFences (markdown: string): Prose[] {
  const lines: Prose[] = []
  let fence: string | undefined
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1]
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined
      return
    }
    if (fence === undefined) lines.push({ line: index + 1, text })
  })
  return lines
}

/** The same lines with inline code spans blanked out: neither code blocks nor code spans hold links. */
function proseOf (markdown: string): Prose[] {
  return linesOutsideFences(markdown).map(({ line, text }) => ({ line, text: text.replace(/(`+)(?:(?!\1).)+\1/g, '``') }))
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf (markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { text } of linesOutsideFences(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text.replace(/`/g, ''))?.[1]
    if (heading === undefined) continue
    const base = heading.toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

function linkTargets (prose: Prose[]): Array<{ line: number, target: string }> {
  const targets: Array<{ line: number, target: string }> = []
  for (const { line, text } of prose) {
    for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push({ line, target: match[1] as string })
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text)
    if (definition !== null) targets.push({ line, target: definition[1] as string })
  }
  return targets
}

/** Every problem of one document, as `FILE:LINE: message`. */
function problemsOf (document: string): string[] {
  const markdown = readFileSync(join(REPO, document), 'utf8')
  const problems: string[] = []
  const report = (line: number, message: string) => problems.push(`${document}:${line}: ${message}`)
  markdown.split('\n').forEach((text, index) => {
    for (const pattern of FORBIDDEN_TEXT) if (pattern.test(text)) report(index + 1, `refers to ${pattern.source.replace(/\\b|\\/g, '')}, which a clone does not have`)
  })
  const prose = proseOf(markdown)
  for (const { line, text } of prose) {
    for (const match of text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/([^/\s)>\]"'`]+)/gi)) {
      if (!/^https?:/i.test(match[0]) || !ALLOWED_HOST.test(match[1] as string)) report(line, `${match[0]} leaves the repository`)
    }
  }
  for (const { line, target } of linkTargets(prose)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (!/^https?:/i.test(target)) report(line, `${target} leaves the repository`)
      continue // http(s) hosts were checked above
    }
    const [path = '', anchor] = target.split('#')
    if (path.startsWith('/')) { report(line, `${target}: use a relative link`); continue }
    if (path !== '' && PACKAGED.has(document)) { report(line, `${target}: this file ships in the npm package, where relative links break`); continue }
    const file = path === '' ? join(REPO, document) : resolve(dirname(join(REPO, document)), decodeURIComponent(path))
    const inside = relative(REPO, file)
    if (inside.startsWith('..') || inside.split(sep).includes('..')) { report(line, `${target} leaves the repository`); continue }
    if (!existsSync(file)) { report(line, `${target}: no such file`); continue }
    if (anchor !== undefined && anchor !== '' && statSync(file).isFile() && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
      report(line, `${target}: no heading with that anchor`)
    }
  }
  return problems
}

describe('documentation links', () => {
  it('covers the README, every document under docs/ and the client package README', () => {
    assert.ok(DOCUMENTS.includes('docs/api-reference.md'))
    assert.ok(DOCUMENTS.length >= 12, DOCUMENTS.join(', '))
  })

  for (const document of DOCUMENTS) {
    it(`${document}: every link stays in the repository and resolves`, () => {
      assert.deepEqual(problemsOf(document), [])
    })
  }

  it('docs/README.md indexes every document under docs/', () => {
    const index = linkTargets(proseOf(readFileSync(join(REPO, 'docs', 'README.md'), 'utf8'))).map(({ target }) => target.split('#')[0])
    const documents = globSync('*.md', { cwd: join(REPO, 'docs'), posix: true }).filter((name) => name !== 'README.md').sort()
    assert.deepEqual(documents.filter((name) => !index.includes(name)), [], 'documents missing from the index of docs/README.md')
  })

  it('computes anchors as GitHub does', () => {
    const anchors = anchorsOf('# GET /analytics/\n## Aggregates (`--type agg`)\n## Errors\n```\n# not a heading\n```\n### Errors\n')
    assert.deepEqual([...anchors], ['get-analytics', 'aggregates---type-agg', 'errors', 'errors-1'])
  })
})
