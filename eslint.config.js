import boundaries from 'eslint-plugin-boundaries'
import neostandard from 'neostandard'

/**
 * The layers of src/ and what each may import (docs/architecture.md): every import points down
 * `cli → http → services → storage → domain`; config sits beside domain at the bottom. An import
 * against the arrow fails the lint, so does one reaching a folder that is not a layer.
 */
const LAYERS = {
  cli: ['cli', 'http', 'services', 'storage', 'config', 'domain'],
  http: ['http', 'services', 'config', 'domain'],
  services: ['services', 'storage', 'config', 'domain'],
  storage: ['storage', 'config', 'domain'],
  config: ['config', 'domain'],
  domain: ['domain'],
}

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'node_modules/**', 'data/**', 'packages/*/dist/**', 'test-artifacts/**'] }),
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      // TypeBox's idiom: `const X = Type.Object(…)` and `type X = Static<typeof X>` share a name.
      '@typescript-eslint/no-redeclare': 'off',
      // Trailing commas in multi-line literals keep diffs to one line.
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.json' } },
      'boundaries/elements': Object.keys(LAYERS).map((layer) => ({ type: layer, pattern: `src/${layer}/**`, partialMatch: false })),
      'boundaries/include': ['src/**/*.ts'],
    },
    rules: {
      'boundaries/dependencies': ['error', {
        default: 'disallow',
        policies: [
          // Packages and Node's own modules are each layer's business.
          { allow: { to: { module: { origin: ['external', 'core'] } } } },
          ...Object.entries(LAYERS).map(([layer, allowed]) => ({
            from: { element: { type: layer } },
            allow: { to: { element: { types: { anyOf: allowed } } } },
          })),
        ],
      }],
      // Every file of src/ belongs to a layer.
      'boundaries/no-unknown-files': 'error',
    },
  },
]
