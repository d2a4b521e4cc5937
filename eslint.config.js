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
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  // Pages are built with the escaping `html` tag (src/html/html.ts): an untagged template literal
  // holding markup would interpolate unescaped values, so it is refused where pages are made.
  {
    files: ['src/portal/**/*.ts', 'src/console/**/*.ts', 'src/html/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: ':not(TaggedTemplateExpression) > TemplateLiteral > TemplateElement[value.raw=/<\\/?[a-zA-Z!]/]',
          message: 'Build markup with the html`` tag from src/html/html.ts, which escapes every value.',
        },
      ],
    },
  },
  // The portal's script runs in the candidate's browser, as a classic script.
  { files: ['src/portal/assets/**/*.js', 'src/console/assets/**/*.js'], languageOptions: { globals: globals.browser, sourceType: 'script' } },
);
