import tseslint from 'typescript-eslint'
import boundaries from './scripts/eslint/boundaries.js'

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist.*/', 'data/', 'drizzle/', 'web/dist/', 'bench/results/'] },
  ...tseslint.configs.recommended,
  {
    plugins: { questline: boundaries },
    rules: {
      'questline/context-boundaries': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read settings in src/config.ts only.' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Ask the Clock (platform/clock.ts) for the time.' },
      ],
    },
  },
  {
    files: ['src/config.ts', 'src/platform/clock.ts', 'test/**', 'bench/**', 'scripts/**', 'examples/**', '*.config.ts', '*.config.js', 'web/vite.config.ts', 'web/src/clock.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
)
