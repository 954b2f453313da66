import { useEffect, useState } from 'preact/hooks'
import type { Brand } from '../../../packages/client/src/types.js'
import { periodOf, type Filters } from '../model/filters.js'
import { dateFieldProblem, periodTooLong, PRESET_LABELS, PRESETS, type Preset } from '../model/period.js'
import { PLATFORM_NAMES, PLATFORMS, type Platform } from '../model/platforms.js'
import { IsoDateInput } from './iso-date-input.js'

/** The layout's breakpoint (styles.css): filters beside the content from here up. */
const WIDE = '(min-width: 60em)'

/**
 * The filters, applied together with one button (not on every tick, so a half-chosen set of
 * brands does not start a walk of every daily page). Nothing ticked means "all": every
 * accessible brand, or every platform summed into one figure (no platform parameter).
 */
/**
 * `today`: the day presets end on (the last day with data); `lastDay`: where the date fields stop
 * (null: no data, or not known yet). The date fields take ISO text (ui/iso-date-input.tsx); each
 * shows its own problem once left or once the form is submitted, and the form asks nothing while
 * either has one.
 */
export function FiltersForm ({ filters, brands, today, lastDay, onApply }: { filters: Filters, brands: Brand[], today: string, lastDay: string | null, onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(filters)
  const [dateError, setDateError] = useState('')
  // Which date fields show their problem: each once left, both once the form is submitted.
  const [checked, setChecked] = useState({ since: false, until: false })
  // A new URL (Back, a tab link) resets what is being edited.
  useEffect(() => { setDraft(filters); setDateError(''); setChecked({ since: false, until: false }) }, [filters])
  // Open beside the figures on a wide screen, folded above them on a narrow one; crossing the
  // breakpoint (a rotated tablet, a resized window) folds or unfolds it again.
  const [open, setOpen] = useState(() => window.matchMedia(WIDE).matches)
  useEffect(() => {
    const query = window.matchMedia(WIDE)
    const onChange = () => setOpen(query.matches)
    query.addEventListener('change', onChange)
    return () => query.removeEventListener('change', onChange)
  }, [])

  const known = new Set(brands.map((brand) => brand.brand_id))
  // Brands named by a shared link but not in /me stay listed, so they can be unticked.
  const listed = [...brands.map((brand) => ({ id: brand.brand_id, name: brand.brand_name })), ...draft.brands.filter((id) => !known.has(id)).map((id) => ({ id, name: `Brand ${id} (not one of yours)` }))]
  const toggle = <T,>(values: T[], value: T, on: boolean): T[] => on ? [...values, value] : values.filter((item) => item !== value)
  const shown = periodOf(draft, today)

  // Custom starts from the dates shown, so switching to it does not lose them.
  const choosePeriod = (value: Preset | 'custom') => {
    setDraft(value === 'custom' ? { ...draft, period: value, since: shown.since, until: shown.until } : { ...draft, period: value })
  }
  const submit = (event: Event) => {
    event.preventDefault()
    if (draft.period === 'custom') {
      setChecked({ since: true, until: true })
      // Each field says what is wrong with it; the first one takes the focus.
      const wrong = (['since', 'until'] as const).find((field) => dateFieldProblem(draft[field], lastDay) !== undefined)
      if (wrong !== undefined) {
        setDateError('')
        document.getElementById(wrong)?.focus()
        return
      }
    }
    if (draft.period === 'custom' && draft.since > draft.until) {
      setDateError('Choose a first day on or before the last day.')
      return
    }
    const tooLong = draft.period === 'custom' ? periodTooLong(draft) : undefined
    if (tooLong !== undefined) {
      setDateError(`${tooLong}: choose a shorter period.`)
      return
    }
    setDateError('')
    onApply({ ...draft, brands: [...draft.brands].sort((a, b) => a - b), platforms: PLATFORMS.filter((code) => draft.platforms.includes(code)) })
  }
  const summary = `${filters.brands.length === 0 ? 'all brands' : `${filters.brands.length} brand${filters.brands.length === 1 ? '' : 's'}`}, ${filters.platforms.length === 0 ? 'all platforms' : filters.platforms.map((code) => PLATFORM_NAMES[code]).join(', ')}`

  return (
    <details class='filters' open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Filters <span class='filters-summary'>({summary})</span></summary>
      <form onSubmit={submit} aria-label='Filters' noValidate>
        <fieldset>
          <legend>Brands</legend>
          <p class='hint' id='brands-hint'>None ticked: every brand you can access.</p>
          <div class='checklist' role='group' aria-describedby='brands-hint'>
            {listed.map((brand) => (
              <label key={brand.id} class='check'>
                <input type='checkbox' name='brand' value={brand.id} checked={draft.brands.includes(brand.id)} onChange={(event) => setDraft({ ...draft, brands: toggle(draft.brands, brand.id, event.currentTarget.checked) })} />
                {brand.name}
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Platforms</legend>
          <p class='hint' id='platforms-hint'>None ticked: all platforms, summed.</p>
          <div class='checklist checklist-columns' role='group' aria-describedby='platforms-hint'>
            {PLATFORMS.map((code: Platform) => (
              <label key={code} class='check'>
                <input type='checkbox' name='platform' value={code} checked={draft.platforms.includes(code)} onChange={(event) => setDraft({ ...draft, platforms: toggle(draft.platforms, code, event.currentTarget.checked) })} />
                {PLATFORM_NAMES[code]}
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Period</legend>
          <label for='period'>Period</label>
          <select id='period' name='period' value={draft.period} onChange={(event) => choosePeriod(event.currentTarget.value as Preset | 'custom')}>
            {PRESETS.map((preset) => <option key={preset} value={preset}>{PRESET_LABELS[preset]}</option>)}
            <option value='custom'>Custom dates</option>
          </select>
          <div class='dates'>
            {(['since', 'until'] as const).map((field) => (
              <IsoDateInput
                key={field}
                id={field}
                label={field === 'since' ? 'From' : 'To'}
                value={shown[field]}
                max={lastDay}
                disabled={draft.period !== 'custom'}
                showProblem={checked[field]}
                describedBy={lastDay === null ? ['date-format', 'date-error'] : ['date-format', 'last-day', 'date-error']}
                onInput={(value) => setDraft({ ...draft, [field]: value })}
                onLeave={() => setChecked((state) => ({ ...state, [field]: true }))}
              />
            ))}
          </div>
          <p class='hint' id='date-format'>Dates as YYYY-MM-DD (UTC).</p>
          {lastDay !== null && <p class='hint' id='last-day' data-last-day={lastDay}>Data goes through {lastDay}.</p>}
          <p id='date-error' class='field-error' role={dateError === '' ? undefined : 'alert'}>{dateError}</p>
        </fieldset>
        <fieldset>
          <legend>Granularity</legend>
          {(['daily', 'monthly'] as const).map((value) => (
            <label key={value} class='check'>
              <input type='radio' name='granularity' value={value} checked={draft.granularity === value} onChange={() => setDraft({ ...draft, granularity: value })} />
              {value === 'daily' ? 'Daily' : 'Monthly'}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Grouping</legend>
          <label class='check'>
            <input type='checkbox' name='split' checked={draft.split} onChange={(event) => setDraft({ ...draft, split: event.currentTarget.checked })} />
            Split by platform (one line per platform, across the brands)
          </label>
          <fieldset class='nested'>
            <legend>Rows and lines</legend>
            {(['brand', 'account'] as const).map((value) => (
              <label key={value} class='check'>
                <input type='radio' name='rows' value={value} checked={draft.rows === value} onChange={() => setDraft({ ...draft, rows: value })} />
                {value === 'brand' ? 'By brand' : 'By account (needs exactly one platform)'}
              </label>
            ))}
          </fieldset>
        </fieldset>
        <button type='submit' class='primary'>Apply filters</button>
      </form>
    </details>
  )
}
