import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { PartnerAnalyticsClient } from './client.js'
import type { ExportFile, ExportManifest } from './types.js'

/**
 * Saving an export's files (docs/client.md "Bulk exports"): each file is written to `<name>.part`
 * and renamed to `<name>` only once its SHA-256 matches the manifest's. An interrupted download
 * leaves the `.part` file; the next call asks for the rest only (`Range` with `If-Range` naming the
 * file's ETag, so a different file of the same name is never appended to what was saved).
 */

/** The bytes of one request: a Response whose body is the file or the range asked. */
export type FileRequest = (headers: Record<string, string>) => Promise<Response>

export class ExportFileMismatchError extends Error {
  constructor (readonly file: string, readonly expectedSha256: string, readonly actualSha256: string) {
    super(`${file}: SHA-256 ${actualSha256} differs from the manifest's ${expectedSha256}`)
    this.name = 'ExportFileMismatchError'
  }
}

export interface DownloadedFile {
  name: string
  path: string
  bytes: number
  /** Bytes already on disk from an earlier, interrupted download, not asked again. */
  resumedFrom: number
}

async function sizeOf (path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size
  } catch {
    return undefined
  }
}

async function sha256Of (path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** Downloads (or finishes downloading) one file into `dir`; a complete, verified file already there is kept. */
export async function saveExportFile (file: ExportFile, dir: string, request: FileRequest): Promise<DownloadedFile> {
  if (file.name.includes('/') || file.name.includes('\\') || file.name.startsWith('.')) throw new TypeError(`unexpected file name ${JSON.stringify(file.name)}`)
  await mkdir(dir, { recursive: true })
  const path = join(dir, file.name)
  const partial = `${path}.part`
  if (await sizeOf(path) === file.bytes && await sha256Of(path) === file.sha256) return { name: file.name, path, bytes: file.bytes, resumedFrom: file.bytes }

  let have = await sizeOf(partial) ?? 0
  if (have > file.bytes) {
    await rm(partial)
    have = 0
  }
  let resumedFrom = 0
  if (have < file.bytes) {
    const headers: Record<string, string> = { 'accept-encoding': 'identity' }
    if (have > 0) {
      headers.range = `bytes=${have}-`
      headers['if-range'] = `"${file.sha256}"`
    }
    const response = await request(headers)
    // 200 (no range asked, or the file changed): start over; 206: append the rest.
    const append = response.status === 206
    resumedFrom = append ? have : 0
    const handle = await open(partial, append ? 'a' : 'w')
    try {
      if (response.body !== null) {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) await handle.write(chunk)
      }
    } finally {
      await handle.close()
    }
  } else {
    resumedFrom = have
  }
  const actual = await sha256Of(partial)
  if (actual !== file.sha256) {
    await rm(partial, { force: true })
    throw new ExportFileMismatchError(file.name, file.sha256, actual)
  }
  await rename(partial, path)
  return { name: file.name, path, bytes: file.bytes, resumedFrom }
}

/**
 * Saves one file of a succeeded export into `dir` (as `<dir>/<name>`), resuming the `.part` file an
 * interrupted download left and verifying the manifest's SHA-256 (ExportFileMismatchError).
 */
export async function downloadExportFile (client: PartnerAnalyticsClient, id: string, name: string, dir: string): Promise<DownloadedFile> {
  const manifest = await client.exportManifest(id)
  const file = manifest.files.find((candidate) => candidate.name === name)
  if (file === undefined) throw new TypeError(`export ${id} has no file ${JSON.stringify(name)}`)
  return await saveExportFile(file, dir, async (headers) => await client.exportFileResponse(id, name, headers))
}

/** Saves every file of a succeeded export into `dir`, each verified and resumable; returns the manifest and the files. */
export async function downloadExport (client: PartnerAnalyticsClient, id: string, dir: string): Promise<{ manifest: ExportManifest, files: DownloadedFile[] }> {
  const manifest = await client.exportManifest(id)
  const files: DownloadedFile[] = []
  for (const file of manifest.files) files.push(await saveExportFile(file, dir, async (headers) => await client.exportFileResponse(id, file.name, headers)))
  return { manifest, files }
}
