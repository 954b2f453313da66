import { render } from 'preact'
import 'uplot/dist/uPlot.min.css'
import './styles.css'
import { App } from './ui/app.js'

const root = document.getElementById('app')
if (root !== null) {
  root.replaceChildren()
  render(<App />, root)
}
