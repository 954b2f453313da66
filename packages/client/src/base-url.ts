/**
 * What a base URL must be for `baseUrl + '/auth/login'` to mean what the caller expects: an
 * absolute http(s) URL, optionally with a path prefix (behind a gateway), without credentials
 * (fetch refuses them, and keys belong in the key pair), query or fragment (the API's paths are
 * appended to it). `localhost:8000` parses as a URL with scheme "localhost:", hence the scheme check.
 */
export function baseUrlProblem (value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be an absolute http:// or https:// URL, e.g. https://api.example.com'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http:// or https:// URL, e.g. https://api.example.com'
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password'
  if (url.search !== '' || url.hash !== '') return 'must not have a query (?…) or fragment (#…)'
  return undefined
}

/** Credentials are never echoed back in an error message. */
export function printableBaseUrl (value: string): string {
  try {
    const url = new URL(value)
    if (url.username === '' && url.password === '') return value
    url.username = '***'
    url.password = ''
    return url.toString()
  } catch {
    return value
  }
}
