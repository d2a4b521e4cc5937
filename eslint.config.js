// Lint: ESLint 9 with typescript-eslint 8, which needs TypeScript < 6.1 (typescript is pinned
// to ~5.9 in package.json for that reason).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  // The portal's script runs in the candidate's browser, as a classic script.
  { files: ['src/portal/assets/**/*.js'], languageOptions: { globals: globals.browser, sourceType: 'script' } },
);
