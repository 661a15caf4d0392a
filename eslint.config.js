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
    files: ['routes/**/*.ts', 'app/**/*.ts', 'bin/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "TSAsExpression > MemberExpression[object.name='request'][property.name=/^(params|query|body)$/]",
          "TSAsExpression > LogicalExpression > MemberExpression[object.name='request'][property.name=/^(params|query|body)$/]",
        ].map((selector) => ({
          selector,
          message: 'request.params, query and body are typed from the route schema: declare it there (routes are RoutesPlugin, app/module.ts) instead of casting.',
        })),
      ],
    },
  },
  {
    files: ['widget/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', HTMLElement: 'readonly', console: 'readonly' } },
  },
);
