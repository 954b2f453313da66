import type { Page } from 'playwright-core'

/**
 * Layout as the user sees it, measured by bounding boxes (never by eye).
 *
 * OUTSIDE_THEIR_BOX (page code, plain JavaScript: tsx would wrap named helpers in its own
 * `__name`, unknown in the page): every visible element that sticks out of the box it belongs
 * to, that is its panel (a view's section, the filters), a card inside it (a headline, a chart, a
 * fieldset, a notice), or the scrolling region it sits in (a wide table scrolls inside its own
 * region: that is not sticking out). Text wider than the element that shows it (cut off, or
 * spilling out) counts too. Half a pixel of rounding is allowed.
 */
const OUTSIDE_THEIR_BOX = String.raw`(() => {
  const BOXES = '.panel, .filters, .card, .chart-card, fieldset, .state, .note, .incomplete, .banner-changes, .banner-rate-limit'
  const describe = (element) => {
    const id = element.id === '' ? '' : '#' + element.id
    const classes = typeof element.className === 'string' && element.className.trim() !== '' ? '.' + element.className.trim().split(/\s+/).join('.') : ''
    return element.tagName.toLowerCase() + id + classes + ' "' + (element.textContent || '').trim().slice(0, 40) + '"'
  }
  const scrolls = (element) => {
    const style = getComputedStyle(element)
    return ['auto', 'scroll'].includes(style.overflowX) || ['auto', 'scroll'].includes(style.overflowY)
  }
  const hidden = (element) => {
    for (let node = element; node !== null; node = node.parentElement) {
      if (node.classList.contains('visually-hidden') || node.classList.contains('skip-link')) return true
      // The content of a closed <details> (its <summary> aside) is not shown.
      if (node.tagName === 'DETAILS' && !node.open && node !== element && !(element.tagName === 'SUMMARY' && element.parentElement === node) && !element.closest('summary')) return true
    }
    return false
  }
  const found = []
  for (const element of document.querySelectorAll('main *, .filters, .filters *')) {
    const rect = element.getBoundingClientRect()
    if (rect.width === 0 || rect.height === 0 || hidden(element)) continue
    let box = element.parentElement
    while (box !== null && !box.matches(BOXES) && !scrolls(box)) box = box.parentElement
    if (box !== null) {
      const outer = box.getBoundingClientRect()
      const left = scrolls(box) ? outer.left - box.scrollLeft : outer.left
      const right = scrolls(box) ? left + box.scrollWidth : outer.right
      if (rect.left < left - 0.5 || rect.right > right + 0.5) {
        found.push(describe(element) + ' [' + Math.round(rect.left) + ', ' + Math.round(rect.right) + '] outside ' + describe(box) + ' [' + Math.round(left) + ', ' + Math.round(right) + ']')
        continue
      }
    }
    if (element.children.length === 0 && (element.textContent || '').trim() !== '' && !scrolls(element) && element.clientWidth > 0 && element.scrollWidth > element.clientWidth + 1) {
      found.push(describe(element) + ' text ' + element.scrollWidth + ' px wide in ' + element.clientWidth + ' px')
    }
  }
  return found
})()`

export async function outsideTheirBox (page: Page): Promise<string[]> {
  return await page.evaluate(OUTSIDE_THEIR_BOX) as string[]
}

/** How far the page itself scrolls sideways (0: it does not). */
export async function sidewaysScroll (page: Page): Promise<number> {
  return await page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth)
}
