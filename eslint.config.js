import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'node_modules/**', 'data/**', 'packages/*/dist/**'] }),
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
      // Layering (STYLE.md §2): storage and domain never reach up into HTTP or services.
      'no-restricted-imports': 'off',
    },
  },
  {
    files: ['src/storage/**/*.ts', 'src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/http/**', '**/cli/**', '**/auth/**', '**/analytics/**', '**/posts/**', '**/partners/**', '**/import/**', '**/users/**'] }],
    },
  },
  {
    files: ['src/analytics/**/*.ts', 'src/posts/**/*.ts', 'src/partners/**/*.ts', 'src/users/**/*.ts', 'src/import/**/*.ts', 'src/auth/**/*.ts', 'src/access/**/*.ts'],
    rules: {
      // Services never see Fastify or the CLI; the auth hook is the one place that touches Fastify.
      'no-restricted-imports': ['error', { patterns: ['**/http/routes/**', '**/cli/**'] }],
    },
  },
]
