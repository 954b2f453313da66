import { baseUrlProblem, printableBaseUrl } from '../base-url.js'

/**
 * The export's settings from the environment. The key pair is read from there only, never from
 * argv (command lines end up in shell history and `ps`). PA_BASE_URL has no default: a silent
 * localhost would send a partner's key pair to whatever listens there, and hide a missing setting.
 */

export interface ExportEnvironment {
  baseUrl: string
  clientKey: string
  secretKey: string
}

export type EnvironmentCheck = { ok: true, value: ExportEnvironment } | { ok: false, problems: string[] }

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== ''

/** Every problem at once, one line each, each naming its variable. */
export function readExportEnvironment (env: Record<string, string | undefined>): EnvironmentCheck {
  const problems: string[] = []
  const baseUrl = env.PA_BASE_URL?.trim()
  if (!present(baseUrl)) {
    problems.push('PA_BASE_URL is not set; set it to the API\'s base URL, e.g. PA_BASE_URL=https://api.example.com')
  } else {
    const problem = baseUrlProblem(baseUrl)
    if (problem !== undefined) problems.push(`PA_BASE_URL ${problem} (got ${JSON.stringify(printableBaseUrl(baseUrl))})`)
  }
  const missingKeys = ['PA_API_CLIENT_KEY', 'PA_API_SECRET_KEY'].filter((name) => !present(env[name]))
  if (missingKeys.length > 0) {
    problems.push(`${missingKeys.join(' and ')} ${missingKeys.length === 1 ? 'is' : 'are'} not set; the key pair is read from the environment only, never from the command line`)
  }
  if (problems.length > 0 || baseUrl === undefined) return { ok: false, problems }
  return { ok: true, value: { baseUrl, clientKey: env.PA_API_CLIENT_KEY as string, secretKey: env.PA_API_SECRET_KEY as string } }
}
