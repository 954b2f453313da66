import type { TSchema } from '@sinclair/typebox'

/**
 * Response schemas marked here become one named component of the OpenAPI document
 * (`#/components/schemas/NAME`), referenced wherever they appear, instead of a copy per
 * operation (src/http/plugins/openapi-document.ts). The marker is ignored by serialization.
 */
export const COMPONENT_MARKER = 'x-component'

export function component<T extends TSchema> (name: string, schema: T): T {
  return { ...schema, [COMPONENT_MARKER]: name }
}
