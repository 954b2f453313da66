import { writeFileSync } from 'node:fs'
import { generateClientSources } from './openapi-source.js'

/** Regenerates openapi.json and src/generated/openapi.ts from the service's route schemas. */
const { document, types } = await generateClientSources()
writeFileSync(new URL('../openapi.json', import.meta.url), document)
writeFileSync(new URL('../src/generated/openapi.ts', import.meta.url), types)
process.stderr.write('wrote packages/client/openapi.json and packages/client/src/generated/openapi.ts\n')
