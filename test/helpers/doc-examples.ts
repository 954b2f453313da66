import { readFileSync } from 'node:fs'

/**
 * The fenced block right after `<!-- example: NAME -->` in a Markdown file (the comment may say
 * more after the name, e.g. which test runs it): what tests run as a reader would paste it.
 */
export function docExample (file: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`<!-- example: ${escaped}(?:\\s[^>]*)?-->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(readFileSync(file, 'utf8'))
  if (match === null) throw new Error(`${file} has no example block ${name}`)
  return match[1] as string
}
