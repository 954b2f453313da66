import fastifyCompress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Compressed answers when the client asks (`Accept-Encoding: br` or `gzip`; docs/api-reference.md
 * "Basics", Compression): a page of 50 posts is about 30 KB of JSON, a few KB compressed. Bodies under
 * 1 KB go as they are (compressing them saves nothing). Registered after the ETag plugin, whose
 * onSend runs first, on the uncompressed body.
 */
export const compressionPlugin = fp(async function compression (app: FastifyInstance) {
  await app.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
  })
}, { name: 'compression' })
