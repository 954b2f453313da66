import { Type } from '@sinclair/typebox'
import { component } from './components.js'

/**
 * Response members whose text is a date or an instant. The `format` is what tells a client
 * generated from the OpenAPI document to read the member as a date (the Python client's
 * `datetime.date` and `datetime.datetime`) rather than as free text; the serializer writes the
 * string unchanged either way.
 */

/** A calendar date, YYYY-MM-DD. */
export function DateMember (description: string) {
  return Type.String({ format: 'date', description })
}

/** An instant in UTC to the second, 2026-11-21T12:00:00Z. */
export function TimestampMember (description: string) {
  return Type.String({ format: 'date-time', description })
}

/**
 * An inclusive run of days: one component for every answer that lists ranges (the missing days of
 * /data-status, the changed days of an analytics.updated event), so the document names one shape.
 */
export const DateRange = component('DateRange', Type.Object({
  since: DateMember('First day of the range, inclusive, YYYY-MM-DD'),
  until: DateMember('Last day of the range, inclusive, YYYY-MM-DD'),
}, { description: 'An inclusive run of days' }))
