import { createReadStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'

/**
 * Where finished export files live (docs/exports.md "Where the files live"): a local directory
 * (EXPORT_DIR) for one machine, or an S3-compatible bucket (EXPORT_S3_*) that every instance
 * reaches. Files are written to local disk first (`stagingDir`), then moved or uploaded whole
 * under `<export id>/<name>`; downloads are streamed through the API from either.
 */

export interface ByteRange {
  /** First byte, inclusive. */
  start: number
  /** Last byte, inclusive. */
  end: number
}

export interface ExportFileStore {
  kind: 'local' | 's3'
  /** Where writers put files before `put` (local disk). */
  stagingDir: string
  /** Moves or uploads a finished local file to `key`; the local file is gone afterwards. */
  put: (key: string, localPath: string) => Promise<void>
  /** The stored file's bytes (all, or one range); rejects when it is not there. */
  read: (key: string, range?: ByteRange) => Promise<Readable>
  /** Removes every file under `prefix/`. */
  removeAll: (prefix: string) => Promise<void>
  close: () => void
}

export function createLocalFileStore (dir: string): ExportFileStore {
  const stagingDir = join(dir, '.staging')
  return {
    kind: 'local',
    stagingDir,
    put: async (key, localPath) => {
      const target = join(dir, key)
      await mkdir(join(target, '..'), { recursive: true })
      await rename(localPath, target)
    },
    read: async (key, range) => {
      const path = join(dir, key)
      await stat(path)
      return createReadStream(path, range === undefined ? {} : { start: range.start, end: range.end })
    },
    removeAll: async (prefix) => { await rm(join(dir, prefix), { recursive: true, force: true }) },
    close: () => {},
  }
}

export interface S3Settings {
  /** e.g. http://127.0.0.1:9000; undefined: AWS itself. */
  endpoint?: string
  region: string
  bucket: string
  /** Put before every key (no leading or trailing slash needed). */
  prefix: string
  accessKeyId?: string
  secretAccessKey?: string
  /** Path-style addressing (most S3-compatible servers). */
  forcePathStyle: boolean
}

export function createS3FileStore (settings: S3Settings, stagingDir: string): ExportFileStore {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where the API requires them: the SDK's default (aws-chunked bodies with a
    // trailing CRC) is not understood by every S3-compatible server, which would store the framing.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
  })
  const prefix = settings.prefix.replace(/^\/+|\/+$/g, '')
  const keyOf = (key: string): string => prefix === '' ? key : `${prefix}/${key}`
  return {
    kind: 's3',
    stagingDir,
    put: async (key, localPath) => {
      const { size } = await stat(localPath)
      await client.send(new PutObjectCommand({ Bucket: settings.bucket, Key: keyOf(key), Body: createReadStream(localPath), ContentLength: size }))
      await rm(localPath, { force: true })
    },
    read: async (key, range) => {
      const answer = await client.send(new GetObjectCommand({
        Bucket: settings.bucket,
        Key: keyOf(key),
        ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
      }))
      return answer.Body as Readable
    },
    removeAll: async (folder) => {
      let token: string | undefined
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: settings.bucket, Prefix: `${keyOf(folder)}/`, ContinuationToken: token }))
        const keys = (page.Contents ?? []).flatMap((object) => object.Key === undefined ? [] : [{ Key: object.Key }])
        if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket: settings.bucket, Delete: { Objects: keys, Quiet: true } }))
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined
      } while (token !== undefined)
    },
    close: () => { client.destroy() },
  }
}
