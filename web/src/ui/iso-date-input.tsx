import { addDays, dateFieldProblem, isDateText } from '../model/period.js'

/**
 * A date field that shows and takes ISO text (YYYY-MM-DD) whatever the browser's language. A
 * native `<input type="date">` draws its value in the locale's order (11/24/2026 in Chromium under
 * en-US) while the rest of the page writes 2026-11-24, and its picker has no words for "the data
 * stops here"; this is a text field instead, with YYYY-MM-DD as its placeholder. No numeric
 * inputmode: a phone's digit pad (iOS's) has no hyphen.
 *
 * Its problem (not a date, or a day after `max`, the last day with data: model/period.ts
 * dateFieldProblem) is written under it, tied to it by aria-describedby and aria-invalid, and
 * announced (role="alert") once `showProblem` says so (the field was left, or the form submitted):
 * not on every keystroke. The form refuses to submit while either field has one. Arrow up and down
 * move a valid date by a day, never past `max`, like a native date field's.
 *
 * `describedBy`: the ids of hints shared with other fields (the format, the last day with data).
 */
export function IsoDateInput ({ id, label, value, max, disabled, showProblem, describedBy = [], labelClass, onInput, onLeave }: {
  id: string
  label: string
  value: string
  max: string | null
  disabled: boolean
  showProblem: boolean
  describedBy?: string[]
  labelClass?: string
  onInput: (value: string) => void
  onLeave: () => void
}) {
  const problem = disabled || !showProblem ? undefined : dateFieldProblem(value, max)
  const errorId = `${id}-error`
  const step = (event: KeyboardEvent) => {
    if ((event.key !== 'ArrowUp' && event.key !== 'ArrowDown') || !isDateText(value)) return
    event.preventDefault()
    const next = addDays(value, event.key === 'ArrowUp' ? 1 : -1)
    if (max === null || next <= max) onInput(next)
  }
  // Left for its form's submit button: the submit shows the problem. Shown at the blur, it would
  // push the button down between the press and the release, and the click would be lost.
  const leave = (event: FocusEvent) => {
    const next = event.relatedTarget
    const form = (event.currentTarget as HTMLInputElement).form
    if (next instanceof HTMLButtonElement && next.type === 'submit' && form !== null && next.form === form) return
    onLeave()
  }
  return (
    <>
      <label for={id} class={labelClass}>{label}</label>
      <input
        id={id}
        name={id}
        type='text'
        class='iso-date'
        autoComplete='off'
        spellcheck={false}
        placeholder='YYYY-MM-DD'
        value={value}
        data-max={max ?? undefined}
        disabled={disabled}
        aria-invalid={problem === undefined ? undefined : 'true'}
        aria-describedby={[...describedBy, errorId].join(' ')}
        onInput={(event) => onInput(event.currentTarget.value)}
        onBlur={leave}
        onKeyDown={step}
      />
      <p id={errorId} class='field-error date-field-error' role={problem === undefined ? undefined : 'alert'} data-date-problem={problem === undefined ? undefined : id}>{problem ?? ''}</p>
    </>
  )
}
