import { Ajv2020 } from 'ajv/dist/2020.js'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

/** Helpers shared by the OpenAPI tests: fetch the document, validate real responses against it. */

export interface OpenApiResponse {
  description: string
  headers?: Record<string, { $ref?: string, required?: boolean, schema?: { type?: string } }>
  content?: Record<string, { schema: unknown, examples?: Record<string, { value: unknown }> }>
}

export interface OpenApiOperation {
  operationId: string
  security?: unknown[]
  parameters?: Array<{ name: string, in: string, required?: boolean }>
  responses: Record<string, OpenApiResponse>
}

export interface OpenApiDoc {
  openapi: string
  info: { description: string }
  paths: Record<string, Record<string, OpenApiOperation>>
  components: { schemas: Record<string, unknown>, headers: Record<string, { required?: boolean, schema?: { type?: string } }>, securitySchemes: Record<string, unknown> }
}

export async function fetchDocument (app: FastifyInstance): Promise<OpenApiDoc> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' })
  if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`)
  return response.json()
}

const DOC_ID = 'https://partner-analytics.test/openapi.json'

/** JSON Pointer escaping of one path segment ("/me" → "~1me"). */
const escape = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1')

/**
 * Validates bodies against the document's own response schemas (JSON Schema 2020-12, as OpenAPI
 * 3.1 says), resolving its `#/components/...` references inside the document.
 */
export class ResponseValidator {
  private readonly ajv: Ajv2020
  constructor (readonly doc: OpenApiDoc) {
    // strict off: OpenAPI adds keywords (e.g. `example`) that are not JSON Schema's.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
    // The document's formats, held to the contract's exact shapes (a real calendar date is the
    // query validator's business): dates YYYY-MM-DD, instants UTC to the second.
    this.ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/)
    this.ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    this.ajv.addSchema(doc as object, DOC_ID)
  }

  operation (method: string, path: string): OpenApiOperation {
    const operation = this.doc.paths[path]?.[method.toLowerCase()]
    if (operation === undefined) throw new Error(`${method} ${path} is not in the document`)
    return operation
  }

  /** Errors of `body` against the schema documented for that operation and status; [] when valid. */
  bodyErrors (method: string, path: string, status: number, body: unknown): string[] {
    const operation = this.operation(method, path)
    if (operation.responses[String(status)]?.content?.['application/json'] === undefined) return [`status ${status} of ${method} ${path} is not documented`]
    const pointer = ['paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema'].map(escape).join('/')
    return this.errorsAgainst(`${DOC_ID}#/${pointer}`, body)
  }

  /** Errors of `value` against a component schema. */
  componentErrors (name: string, value: unknown): string[] {
    return this.errorsAgainst(`${DOC_ID}#/components/schemas/${escape(name)}`, value)
  }

  private errorsAgainst (ref: string, value: unknown): string[] {
    const validate = this.ajv.compile({ $ref: ref })
    if (validate(value)) return []
    return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword}`)
  }

  /** Headers the document promises on this response that the real response lacks (or with a non-integer value where integers are promised). */
  headerProblems (method: string, path: string, response: LightMyRequestResponse, options: { includeOptional: boolean }): string[] {
    const documented = this.operation(method, path).responses[String(response.statusCode)]?.headers ?? {}
    const problems: string[] = []
    for (const [name, entry] of Object.entries(documented)) {
      const header = entry.$ref === undefined ? entry : this.doc.components.headers[entry.$ref.split('/').pop() ?? '']
      if (header === undefined) { problems.push(`${name}: dangling $ref`); continue }
      const value = response.headers[name.toLowerCase()]
      if (value === undefined) {
        if (header.required === true || options.includeOptional) problems.push(`${name}: missing`)
        continue
      }
      if (header.schema?.type === 'integer' && !/^\d+$/.test(String(value))) problems.push(`${name}: "${String(value)}" is not an integer`)
    }
    return problems
  }
}
