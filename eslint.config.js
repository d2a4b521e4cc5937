// Lint: ESLint 9 with typescript-eslint 8, which needs TypeScript < 6.1 (typescript is pinned
// to ~5.9 in package.json for that reason).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // src/portal/assets/editor.js and src/console/assets/content-editor.js are the bundled editors (scripts/build-editor.mjs).
  { ignores: ['node_modules/', 'data/', 'artifacts/', 'dist/', 'dist.next/', 'src/portal/assets/editor.js', 'src/console/assets/content-editor.js'] },
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
    files: ['src/portal/**/*.ts', 'src/console/**/*.ts', 'src/html/**/*.ts', 'src/modules/mail/**/*.ts'],
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
  // Request-scoped storage (AsyncLocalStorage, async hooks) is refused in the service: once entered,
  // Node 20 tracks every promise of the process, so a portal page served once made each API read
  // cost about 11 µs more CPU. What a request needs travels with the request.
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['node:async_hooks', 'async_hooks'].map((name) => ({ name, message: 'Pass what a request needs along with it: async hooks slow every promise of the process.' })),
        },
      ],
    },
  },
  // The direction of dependencies. Domain errors and the template layer depend on nothing of ours;
  // modules never reach up into the surfaces (portal, console) or the app; inside a module only
  // its HTTP edge (routes, admin routes and the request hooks) speaks HTTP problems, the rest
  // throws domain errors (src/domain/errors.ts) that one mapper turns into problems.
  {
    files: ['src/domain/**/*.ts', 'src/html/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/modules/**', '**/http/**', '**/portal/**', '**/console/**', '**/db/**'], message: 'src/domain and src/html depend on nothing of the service.' }],
        },
      ],
    },
  },
  {
    files: ['src/modules/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      '**/routes.ts',
      '**/*-routes.ts',
      'src/modules/keys/authenticate.ts',
      'src/modules/keys/admin-auth.ts',
      'src/modules/limits/rate-limit.ts',
      'src/modules/invitations/idempotency.ts',
      'src/modules/mail/dev-mailbox.ts',
      // The invite's parser checks a body by the schema of POST /v1/invite with the same Ajv as
      // request bodies and answers in its words (it returns errors, it throws no HTTP problem).
      'src/modules/invitations/invite-input.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/portal/**', '**/console/**', '**/app.js', '**/server.js'], message: 'Modules serve the surfaces; they never import them.' },
            { group: ['**/http/**'], message: 'Throw a domain error (src/domain/errors.ts); HTTP belongs to the routes at the edge.' },
          ],
        },
      ],
    },
  },
  {
    files: [
      'src/modules/**/routes.ts',
      'src/modules/**/*-routes.ts',
      'src/modules/keys/authenticate.ts',
      'src/modules/keys/admin-auth.ts',
      'src/modules/limits/rate-limit.ts',
      'src/modules/invitations/idempotency.ts',
      'src/modules/mail/dev-mailbox.ts',
      'src/modules/invitations/invite-input.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/portal/**', '**/console/**', '**/app.js', '**/server.js'], message: 'Modules serve the surfaces; they never import them.' }] },
      ],
    },
  },
  {
    files: ['src/portal/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/console/**', '**/app.js', '**/server.js'], message: 'The portal does not depend on the console or the app.' }] },
      ],
    },
  },
  // The portal's script runs in the candidate's browser, as a classic script.
  { files: ['src/portal/assets/**/*.js', 'src/console/assets/**/*.js'], languageOptions: { globals: globals.browser, sourceType: 'script' } },
  // The code editor's entry, bundled for the browser by scripts/build-editor.mjs.
  { files: ['scripts/editor/**/*.js'], languageOptions: { globals: globals.browser, sourceType: 'module' } },
);
