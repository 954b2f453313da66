import { DAILY_COUNT_METRICS, PLATFORM_METRICS, metricAppliesTo, type PlatformMetric } from '../../domain/metrics.js'
import { PLATFORM_NAMES, type PlatformCode } from '../../domain/platforms.js'
import { POST_COUNT_METRICS, POST_TEXT_FIELDS } from '../../domain/post-fields.js'
import { derivePostType, POST_TYPES, resolvePostType, type PostType } from '../../domain/post-types.js'
import {
  checkCount, checkDate, checkId, checkMoney, checkName, checkPlatform, checkText, checkTimestamp, FieldError, show,
  type Checked,
} from './fields.js'
import { RECORD_KINDS, type AccountRecord, type BrandRecord, type DailyRecord, type ImportRecord, type PostRecord, type RecordKind } from './records.js'

/**
 * Turns one parsed line into a clean record, or lists everything wrong with it. Only the record
 * itself is checked here; whether its account and brand exist is the import service's concern.
 */

export type Validation = { record: ImportRecord, errors?: undefined } | { record?: undefined, errors: string[] }

/** Every field name each kind accepts; anything else is refused so that typos never vanish. */
export const FIELDS_OF: Record<RecordKind, ReadonlySet<string>> = {
  brand: new Set(['kind', 'brand_id', 'brand_name']),
  account: new Set(['kind', 'account_id', 'brand_id', 'platform', 'account_name', 'network_id', 'storage_avatar', 'permalink']),
  daily: new Set(['kind', 'platform', 'account_id', 'date', 'revenue', ...DAILY_COUNT_METRICS]),
  post: new Set(['kind', 'id', 'platform', 'account_id', 'created_time', 'type', 'post_type', ...POST_TEXT_FIELDS, ...POST_COUNT_METRICS, 'revenue']),
}

/** Reads fields off one raw object, collecting every problem instead of stopping at the first. */
class FieldReader {
  readonly errors: string[] = []
  constructor (private readonly raw: Record<string, unknown>) {}

  has (field: string): boolean {
    return Object.hasOwn(this.raw, field)
  }

  /** A field that must be present; `fallback` stands in when it is missing or bad. */
  required<T> (field: string, check: (field: string, value: unknown) => Checked<T>, fallback: T): T {
    if (!this.has(field)) {
      this.errors.push(`missing required field "${field}"`)
      return fallback
    }
    return this.keep(check(field, this.raw[field]), fallback)
  }

  /** A field that may be left out, which means null (not reported). */
  optional<T> (field: string, check: (field: string, value: unknown) => Checked<T | null>): T | null {
    return this.has(field) ? this.keep(check(field, this.raw[field]), null) : null
  }

  platform (): PlatformCode | undefined {
    return this.required<PlatformCode | undefined>('platform', (_field, value) => checkPlatform(value), undefined)
  }

  /** A platform-specific metric with a value on a platform that lacks it is an error; null is fine. */
  applicable (metric: PlatformMetric, value: number | null, platform: PlatformCode | undefined): void {
    if (value !== null && platform !== undefined && !metricAppliesTo(metric, platform)) {
      this.errors.push(`${metric} does not apply to ${PLATFORM_NAMES[platform]} (${platform}); leave it out or null`)
    }
  }

  keep<T> (checked: Checked<T>, fallback: T): T {
    if (checked instanceof FieldError) {
      this.errors.push(checked.message)
      return fallback
    }
    return checked
  }
}

function isPlatformMetric (field: string): field is PlatformMetric {
  return Object.hasOwn(PLATFORM_METRICS, field)
}

function readBrand (reader: FieldReader): BrandRecord {
  return {
    kind: 'brand',
    brand_id: reader.required('brand_id', checkId, 0),
    brand_name: reader.required('brand_name', checkName, ''),
  }
}

function readAccount (reader: FieldReader): AccountRecord {
  const platform = reader.platform()
  return {
    kind: 'account',
    platform: platform ?? 'fb',
    account_id: reader.required('account_id', checkId, 0),
    brand_id: reader.required('brand_id', checkId, 0),
    account_name: reader.required('account_name', checkName, ''),
    network_id: reader.optional('network_id', checkText),
    storage_avatar: reader.optional('storage_avatar', checkText),
    permalink: reader.optional('permalink', checkText),
  }
}

function readDaily (reader: FieldReader): DailyRecord {
  const platform = reader.platform()
  const record = {
    kind: 'daily',
    platform: platform ?? 'fb',
    account_id: reader.required('account_id', checkId, 0),
    date: reader.required('date', checkDate, ''),
    revenue_micros: reader.optional('revenue', checkMoney),
  } as DailyRecord
  for (const metric of DAILY_COUNT_METRICS) {
    const value = reader.optional(metric, checkCount)
    if (isPlatformMetric(metric)) reader.applicable(metric, value, platform)
    record[metric] = value
  }
  return record
}

function checkPostType (field: string, value: unknown): Checked<PostType | null> {
  if (value === null) return null
  const category = typeof value === 'string' ? resolvePostType(value) : undefined
  if (category === undefined) return new FieldError(`${field} must be one of ${POST_TYPES.join(', ')} (got ${show(value)})`)
  return category
}

function readPost (reader: FieldReader): PostRecord {
  const platform = reader.platform()
  const type = reader.optional('type', checkText)
  const record = {
    kind: 'post',
    platform: platform ?? 'fb',
    id: reader.required('id', checkName, ''),
    account_id: reader.required('account_id', checkId, 0),
    created_time: reader.required('created_time', checkTimestamp, ''),
    type,
    post_type: reader.optional('post_type', checkPostType) ?? derivePostType(platform ?? 'fb', type),
    revenue_micros: reader.optional('revenue', checkMoney),
  } as PostRecord
  for (const field of POST_TEXT_FIELDS) record[field] = reader.optional(field, checkText)
  for (const metric of POST_COUNT_METRICS) {
    const value = reader.optional(metric, checkCount)
    if (isPlatformMetric(metric)) reader.applicable(metric, value, platform)
    record[metric] = value
  }
  return record
}

const READERS: Record<RecordKind, (reader: FieldReader) => ImportRecord> = {
  brand: readBrand,
  account: readAccount,
  daily: readDaily,
  post: readPost,
}

export function validateRecord (value: unknown): Validation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { errors: [`a record must be a JSON object (got ${show(value)})`] }
  }
  const raw = value as Record<string, unknown>
  if (!Object.hasOwn(raw, 'kind')) return { errors: ['missing required field "kind"'] }
  const kind = raw.kind
  if (typeof kind !== 'string' || !(RECORD_KINDS as readonly string[]).includes(kind)) {
    return { errors: [`unknown kind ${show(kind)} (expected ${RECORD_KINDS.join(', ')})`] }
  }
  const allowed = FIELDS_OF[kind as RecordKind]
  const reader = new FieldReader(raw)
  for (const field of Object.keys(raw)) {
    if (!allowed.has(field)) reader.errors.push(`unknown field "${field}" on a ${kind} record`)
  }
  const record = READERS[kind as RecordKind](reader)
  return reader.errors.length > 0 ? { errors: reader.errors } : { record }
}
