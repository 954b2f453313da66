import { useEffect, useState } from 'preact/hooks'
import type { ExportFile, ExportJob } from '../../../../packages/client/src/types.js'
import { describeProblem, type Problem } from '../../api/problems.js'
import {
  DATASET_LABELS, DATASETS, describeJob, describeProgress, exportBody, formatBytes, FORMAT_LABELS, FORMATS, isUnderway,
  type Dataset, type ExportForm, type ExportFormat,
} from '../../model/exports.js'
import { dateFieldProblem } from '../../model/period.js'
import { IsoDateInput } from '../iso-date-input.js'
import { Loading, ProblemNotice } from '../notices.js'
import { useSession } from '../session-context.js'
import type { ViewProps } from '../view-props.js'

/**
 * Bulk exports (docs/exports.md): a form that queues one (POST /exports), the partner's jobs newest
 * first (GET /exports, older pages on request), each job's progress while it runs (GET
 * /exports/{id} every second while the view is open), and its files once it succeeded. A file is
 * fetched with the session's token (the download path needs it) and handed to the browser as a
 * download under its own name; the bytes are the API's, unchanged.
 */

/** How often an unfinished job is asked again. */
const POLL_MS = 1000

type ListState = { status: 'loading' } | { status: 'done', jobs: ExportJob[], nextCursor: string | null } | { status: 'error', problem: Problem }

export function ExportsView ({ period, revision, lastDay }: ViewProps & { lastDay: string | null }) {
  const { session, endSession } = useSession()
  const brands = session.profile.brands
  const [form, setForm] = useState<ExportForm>({ dataset: 'daily', format: 'parquet', range: 'period', period, brand: null })
  const [list, setList] = useState<ListState>({ status: 'loading' })
  const [problem, setProblem] = useState<Problem | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  // Which date fields show their problem (ui/iso-date-input.tsx): each once left, both once submitted.
  const [checked, setChecked] = useState({ since: false, until: false })

  const fail = (error: unknown): void => {
    const found = describeProblem(error)
    if (found.kind === 'session') endSession(found)
    else setProblem(found)
  }
  const brandName = (id: number) => brands.find((brand) => brand.brand_id === id)?.brand_name ?? `brand ${id}`

  useEffect(() => {
    let cancelled = false
    session.client.exports({ limit: 20 }).then(
      (page) => { if (!cancelled) setList({ status: 'done', jobs: page.data, nextCursor: page.next_cursor }) },
      (error: unknown) => {
        if (cancelled) return
        const found = describeProblem(error)
        if (found.kind === 'session') endSession(found)
        else setList({ status: 'error', problem: found })
      },
    )
    return () => { cancelled = true }
  }, [session, revision])

  // While a job is queued or running, ask for it again every second (only while this view is open).
  const underway = list.status === 'done' ? list.jobs.filter(isUnderway).map((job) => job.id) : []
  const underwayKey = underway.join(',')
  useEffect(() => {
    if (underway.length === 0) return
    let cancelled = false
    const timer = setTimeout(() => {
      Promise.all(underway.map(async (id) => await session.client.getExport(id))).then(
        (fresh) => {
          if (cancelled) return
          const byId = new Map(fresh.map((job) => [job.id, job]))
          setList((state) => state.status === 'done' ? { ...state, jobs: state.jobs.map((job) => byId.get(job.id) ?? job) } : state)
        },
        (error: unknown) => { if (!cancelled) fail(error) },
      )
    }, POLL_MS)
    return () => { cancelled = true; clearTimeout(timer) }
  }, [underwayKey, list])

  const create = async (event: Event): Promise<void> => {
    event.preventDefault()
    setProblem(null)
    setNotice(null)
    if (form.range === 'period') {
      setChecked({ since: true, until: true })
      const wrong = (['since', 'until'] as const).find((part) => dateFieldProblem(form.period[part], lastDay) !== undefined)
      if (wrong !== undefined) {
        document.getElementById(`export-${wrong}`)?.focus()
        return
      }
    }
    setBusy(true)
    try {
      const job = await session.client.createExport(exportBody(form))
      setList((state) => state.status === 'done' ? { ...state, jobs: [job, ...state.jobs] } : { status: 'done', jobs: [job], nextCursor: null })
      setNotice(`Export ${job.id} queued: its progress is shown below.`)
    } catch (error) {
      fail(error)
    } finally {
      setBusy(false)
    }
  }

  const older = async (): Promise<void> => {
    if (list.status !== 'done' || list.nextCursor === null) return
    try {
      const page = await session.client.exports({ limit: 20, cursor: list.nextCursor })
      setList({ status: 'done', jobs: [...list.jobs, ...page.data], nextCursor: page.next_cursor })
    } catch (error) {
      fail(error)
    }
  }

  const cancel = async (job: ExportJob): Promise<void> => {
    setProblem(null)
    try {
      const answer = await session.client.cancelExport(job.id)
      setList((state) => state.status !== 'done'
        ? state
        : { ...state, jobs: answer === undefined ? state.jobs.filter((item) => item.id !== job.id) : state.jobs.map((item) => item.id === job.id ? answer : item) })
      setNotice(answer === undefined ? `Export ${job.id} and its files removed.` : `Export ${job.id} cancelled.`)
    } catch (error) {
      fail(error)
    }
  }

  const download = async (job: ExportJob, file: ExportFile): Promise<void> => {
    setProblem(null)
    try {
      const response = await session.client.exportFileResponse(job.id, file.name, {})
      const url = URL.createObjectURL(await response.blob())
      const link = document.createElement('a')
      link.href = url
      link.download = file.name
      link.click()
      setTimeout(() => URL.revokeObjectURL(url), 10_000)
    } catch (error) {
      fail(error)
    }
  }

  const setPeriod = (part: 'since' | 'until', value: string) => setForm({ ...form, period: { ...form.period, [part]: value } })

  return (
    <section class='panel' aria-labelledby='exports-title'>
      <h2 id='exports-title'>Exports</h2>
      <p class='hint'>Bulk files of your data for a warehouse (Parquet, CSV or NDJSON), made in the background. See docs/exports.md for loading them and keeping them current from the change feed.</p>
      <form class='export-form' onSubmit={(event) => { create(event).catch(fail) }} aria-labelledby='export-form-title'>
        <h3 id='export-form-title'>New export</h3>
        <div class='export-fields'>
          <label for='export-dataset'>Dataset</label>
          <select id='export-dataset' value={form.dataset} onChange={(event) => setForm({ ...form, dataset: event.currentTarget.value as Dataset })}>
            {DATASETS.map((value) => <option key={value} value={value}>{DATASET_LABELS[value]}</option>)}
          </select>
          <label for='export-format'>Format</label>
          <select id='export-format' value={form.format} onChange={(event) => setForm({ ...form, format: event.currentTarget.value as ExportFormat })}>
            {FORMATS.map((value) => <option key={value} value={value}>{FORMAT_LABELS[value]}</option>)}
          </select>
          <label for='export-brand'>Brand</label>
          <select id='export-brand' value={form.brand === null ? '' : String(form.brand)} onChange={(event) => setForm({ ...form, brand: event.currentTarget.value === '' ? null : Number(event.currentTarget.value) })}>
            <option value=''>Every brand</option>
            {brands.map((brand) => <option key={brand.brand_id} value={String(brand.brand_id)}>{brand.brand_name}</option>)}
          </select>
        </div>
        <fieldset class='export-range'>
          <legend>Period</legend>
          <label><input type='radio' name='export-range' value='period' checked={form.range === 'period'} onChange={() => setForm({ ...form, range: 'period' })} /> From – to</label>
          {(['since', 'until'] as const).map((part) => (
            <IsoDateInput
              key={part}
              id={`export-${part}`}
              label={part === 'since' ? 'First day' : 'Last day'}
              labelClass='visually-hidden'
              value={form.period[part]}
              max={lastDay}
              disabled={form.range !== 'period'}
              showProblem={checked[part]}
              onInput={(value) => setPeriod(part, value)}
              onLeave={() => setChecked((state) => ({ ...state, [part]: true }))}
            />
          ))}
          <label><input type='radio' name='export-range' value='history' checked={form.range === 'history'} onChange={() => setForm({ ...form, range: 'history' })} /> The whole history</label>
        </fieldset>
        <button type='submit' disabled={busy}>Create export</button>
      </form>
      {notice !== null && <p class='note' role='status' data-export-notice>{notice}</p>}
      {problem !== null && <ProblemNotice problem={problem} />}
      <h3>Your exports</h3>
      {list.status === 'loading' && <Loading label='Loading your exports' />}
      {list.status === 'error' && <ProblemNotice problem={list.problem} />}
      {list.status === 'done' && list.jobs.length === 0 && <p class='hint' data-exports-empty>No export yet.</p>}
      {list.status === 'done' && list.jobs.length > 0 && (
        <ul class='export-jobs'>
          {list.jobs.map((job) => (
            <li key={job.id} class='export-job' data-export={job.id} data-status={job.status}>
              <p class='export-job-head'>
                <strong>{describeJob(job, brandName)}</strong>{' '}
                <span class='export-job-meta'>created {job.created_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')} UTC · <code>{job.id}</code></span>
              </p>
              <p class='export-status' data-export-status>
                <span class={`export-badge export-${job.status}`}>{job.status}</span>{' '}
                {isUnderway(job) || job.status === 'succeeded' ? describeProgress(job) : ''}
                {job.status === 'failed' && job.error !== null && <> {job.error.code}: {job.error.message}</>}
                {job.status === 'succeeded' && job.files === null && ' Its files have expired.'}
                {job.status === 'succeeded' && job.files !== null && job.files.length === 0 && ' No rows matched: no file.'}
              </p>
              {isUnderway(job) && job.progress.rows_estimate !== null && job.progress.rows_estimate > 0 && (
                <progress max={job.progress.rows_estimate} value={Math.min(job.progress.rows_written, job.progress.rows_estimate)} aria-label={`Export ${job.id}: rows written`} />
              )}
              {job.status === 'succeeded' && job.files !== null && job.files.length > 0 && (
                <ul class='export-files'>
                  {job.files.map((file) => (
                    <li key={file.name}>
                      <button type='button' class='link-button' onClick={() => { download(job, file).catch(fail) }} data-file={file.name}>Download {file.name}</button>{' '}
                      <span class='export-file-meta'>{file.rows.toLocaleString('en-US')} rows, {formatBytes(file.bytes)}, SHA-256 <code title={file.sha256}>{file.sha256.slice(0, 12)}…</code></span>
                    </li>
                  ))}
                </ul>
              )}
              {isUnderway(job) && <button type='button' onClick={() => { cancel(job).catch(fail) }} data-cancel={job.id}>Cancel</button>}
              {!isUnderway(job) && <button type='button' onClick={() => { cancel(job).catch(fail) }} data-delete={job.id}>Delete</button>}
            </li>
          ))}
        </ul>
      )}
      {list.status === 'done' && list.nextCursor !== null && <button type='button' onClick={() => { older().catch(fail) }}>Older exports</button>}
    </section>
  )
}
