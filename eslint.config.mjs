// ESLint with typescript-eslint's recommended rules, as the TypeScript Actions template runs it;
// eslint-config-prettier turns off what the formatter decides. https://typescript-eslint.io/getting-started
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'dist/',
      '.dist-*/',
      'schema/',
      'fixtures/',
      'node_modules/',
      'demo-results/',
      'coverage/',
      'llm-bench-results/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // A leading underscore names what a destructuring leaves out on purpose (`{ $schema: _, ...rest }`), as tsc's noUnused* does.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Tests read what servers answered (parsed JSON of engines' and GitHub's replies) and poke at it freely.
    files: ['test/**', 'harness/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)
