import type { ViewProps } from '../view-props.js'
import { Charts } from './charts.js'
import { Headlines } from './headlines.js'

export function OverviewView (props: ViewProps) {
  return (
    <>
      <Headlines {...props} />
      <Charts {...props} />
    </>
  )
}
