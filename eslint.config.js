import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'scratch/**', 'data/**', '.tap/**', 'coverage/**', 'bench/results.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Request parts have the types of the route's schemas (app/type-provider.ts): a cast would
    // let a handler believe something its schema does not say.
    files: ['routes/**/*.ts', 'app/**/*.ts', 'bin/**/*.ts', 'commands/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "TSAsExpression > MemberExpression[object.name='request'][property.name=/^(params|query|body)$/]",
          "TSAsExpression > LogicalExpression > MemberExpression[object.name='request'][property.name=/^(params|query|body)$/]",
          // A field read from a body or a command's input (`b['o:title'] as string`, `input.status as BlogPostStatus`):
          // its type is the Static type of the schema that validated it (commands/<module>/schemas.ts).
          "TSAsExpression > MemberExpression[object.name=/^(b|body|input|q|query|params)$/]",
          "TSAsExpression > MemberExpression > MemberExpression[object.name=/^(request|body|input)$/]",
        ].map((selector) => ({
          selector,
          message: 'Request parts, bodies and command inputs are typed from their schema: declare it there (routes are RoutesPlugin, app/kernel.ts; bodies in commands/<module>/schemas.ts) instead of casting.',
        })),
      ],
    },
  },
  {
    // A call with more than three arguments takes one named object (issue 40): positional lists
    // such as reserveSlug(ctx, scope, given, base, owner, refuse, ownerExists) were read by position.
    files: ['commands/**/*.ts', 'queries/**/*.ts'],
    rules: { 'max-params': ['error', 3] },
  },
  {
    // Decider files are being rewritten as explicit switches (issue 40, item 2); that rewrite
    // takes these two signatures (folder-tree-decider's freeSlug, resourceDecider) with it.
    files: ['commands/assets/folder-tree-decider.ts', 'commands/platform/resource-decider.ts'],
    rules: { 'max-params': 'off' },
  },
  {
    files: ['widget/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', HTMLElement: 'readonly', console: 'readonly' } },
  },
);
