import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/**
 * The partner dashboard's build (docs/dashboard.md): web/ → dist/dashboard, served by the API at
 * /dashboard/ (src/http/routes/dashboard/index.ts). Everything is bundled: no CDN, and no inline
 * script or style, so the page runs under the route's `default-src 'self'` policy.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  // No public/ folder: every asset is imported, hashed and bundled.
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Inlined assets would become data: URLs; keep every asset a file of this origin.
    assetsInlineLimit: 0,
    // The module-preload polyfill is injected as inline code in some setups; browsers we target have modulepreload.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  logLevel: 'warn',
})
