import type { ViewProps } from '../view-props.js'
import { Charts } from './charts.js'
import { Freshness } from './freshness.js'
import { Headlines } from './headlines.js'

export function OverviewView (props: ViewProps) {
  return (
    <>
      <Headlines {...props} />
      <Freshness {...props} />
      <Charts {...props} />
    </>
  )
}
