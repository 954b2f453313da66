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

/** What a record refers to: an account (daily rows, posts) or a brand (accounts), when those fields are valid. */
export type Reference =
  | { kind: 'account', platform: PlatformCode, account_id: number }
  | { kind: 'brand', brand_id: number }

/** What a record declares: its own identity, when those fields are valid. */
export type Declaration = Reference

export type Validation =
  | { record: ImportRecord, errors?: undefined }
  /**
   * `reference` (what the record names) and `declares` (its own key) are known when those fields
   * are valid, so references are checked even around records with other errors: one round of
   * fixes is enough, and a record with a bad field still counts as declaring its key.
   */
  | { record?: undefined, errors: string[], reference?: Reference | undefined, declares?: Declaration | undefined }

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
  /** Fields found missing or bad. */
  readonly failed = new Set<string>()
  constructor (private readonly raw: Record<string, unknown>) {}

  has (field: string): boolean {
    return Object.hasOwn(this.raw, field)
  }

  /** A field that must be present; `fallback` stands in when it is missing or bad. */
  required<T> (field: string, check: (field: string, value: unknown) => Checked<T>, fallback: T): T {
    if (!this.has(field)) {
      this.errors.push(`missing required field "${field}"`)
      this.failed.add(field)
      return fallback
    }
    return this.keep(check(field, this.raw[field]), fallback, field)
  }

  /** A field that may be left out, which means null (not reported). */
  optional<T> (field: string, check: (field: string, value: unknown) => Checked<T | null>): T | null {
    return this.has(field) ? this.keep(check(field, this.raw[field]), null, field) : null
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

  keep<T> (checked: Checked<T>, fallback: T, field: string): T {
    if (checked instanceof FieldError) {
      this.errors.push(checked.message)
      this.failed.add(field)
      return fallback
    }
    return checked
  }

  /** Whether these fields were all present and valid. */
  valid (...fields: string[]): boolean {
    return fields.every((field) => this.has(field) && !this.failed.has(field))
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
  if (reader.errors.length === 0) return { record }
  return { errors: reader.errors, reference: referenceOf(record, reader), declares: declarationOf(record, reader) }
}

/** The key a record read with errors declares, when its key fields are themselves valid. */
function declarationOf (record: ImportRecord, reader: FieldReader): Declaration | undefined {
  if (record.kind === 'brand') return reader.valid('brand_id') ? { kind: 'brand', brand_id: record.brand_id } : undefined
  if (record.kind === 'account') return reader.valid('platform', 'account_id') ? { kind: 'account', platform: record.platform, account_id: record.account_id } : undefined
  return undefined
}

/** The reference of a record read with errors, when the fields naming it are themselves valid. */
function referenceOf (record: ImportRecord, reader: FieldReader): Reference | undefined {
  if (record.kind === 'account') return reader.valid('brand_id') ? { kind: 'brand', brand_id: record.brand_id } : undefined
  if (record.kind === 'daily' || record.kind === 'post') {
    return reader.valid('platform', 'account_id') ? { kind: 'account', platform: record.platform, account_id: record.account_id } : undefined
  }
  return undefined
}
