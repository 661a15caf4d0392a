import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** One `no-restricted-imports` block per layer: relative imports into a higher layer are refused. */
function layerRules(layers) {
  return layers.map(([files, above, message]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: above.map((folder) => ({
            regex: `^(\\.\\./)+${folder.includes('/') ? folder : `${folder}/`}`,
            message,
          })),
        },
      ],
    },
  }));
}

/**
 * JSON from outside the process (a file read back, a message, a line of an archive, an answer) is
 * checked against its schema, whose Static type it then has (infra/checked-json.ts), not cast:
 * `JSON.parse(text) as X`, `... as unknown as X`, `<X>JSON.parse(text)` and
 * `const x: X = JSON.parse(text)` are refused outside test/ (`as unknown` only widens, and stays).
 * Every block below that sets no-restricted-syntax repeats these: a later block replaces the rule.
 */
const JSON_PARSE_CASTS = [
  "TSAsExpression[typeAnnotation.type!='TSUnknownKeyword'][expression.type='CallExpression'][expression.callee.object.name='JSON'][expression.callee.property.name='parse']",
  "TSAsExpression[expression.type='TSAsExpression'][expression.expression.type='CallExpression'][expression.expression.callee.object.name='JSON'][expression.expression.callee.property.name='parse']",
  "TSTypeAssertion[expression.type='CallExpression'][expression.callee.object.name='JSON'][expression.callee.property.name='parse']",
  "VariableDeclarator[id.typeAnnotation][id.typeAnnotation.typeAnnotation.type!='TSUnknownKeyword'][init.type='CallExpression'][init.callee.object.name='JSON'][init.callee.property.name='parse']",
].map((selector) => ({
  selector,
  message:
    'Parsed JSON comes from outside the process: check it against a TypeBox schema (parseChecked or checked, infra/checked-json.ts) instead of casting it.',
}));

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
    files: ['**/*.ts'],
    ignores: ['test/**'],
    rules: { 'no-restricted-syntax': ['error', ...JSON_PARSE_CASTS] },
  },
  {
    // Request parts have the types of the route's schemas (routes/http/type-provider.ts): a cast would
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
          'TSAsExpression > MemberExpression[object.name=/^(b|body|input|q|query|params)$/]',
          'TSAsExpression > MemberExpression > MemberExpression[object.name=/^(request|body|input)$/]',
          'TSAsExpression > ChainExpression > MemberExpression[object.name=/^(b|body|input|q|query|params)$/]',
          // A whole body or input (`body as Record<string, unknown>`), to read its fields untyped.
          'TSAsExpression > Identifier[name=/^(body|input)$/]',
        ].map((selector) => ({
          selector,
          message:
            'Request parts, bodies and command inputs are typed from their schema: declare it there (routes are RoutesPlugin, routes/http/routes-plugin.ts; bodies in commands/<module>/schemas.ts) instead of casting.',
        })),
        ...JSON_PARSE_CASTS,
      ],
    },
  },
  {
    // A projection reads its events through its union (defineProjection, projections/projection.ts)
    // and its documents through their types; data of unknown shape (the control stream's, an
    // event named at run time) is checked with a TypeBox schema (Value.Check), not cast. The one
    // cast from a stored event is in the runner's applyStored, and says why.
    files: ['projections/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression:not([typeAnnotation.typeName.name='const'])",
          message:
            'Projections do not cast: type the event union or the document, or check data of unknown shape with Value.Check.',
        },
        ...JSON_PARSE_CASTS,
      ],
    },
  },
  // Layers run one way: app -> routes -> (commands | queries | workers) -> projections -> infra
  // (config/ lives in infra/config.ts; shared value helpers in infra/). bin/ may import anything.
  ...layerRules([
    [
      'infra/**/*.ts',
      ['app', 'bin', 'routes', 'commands', 'queries', 'workers', 'projections'],
      'infra is the bottom layer: a port or adapter never imports what uses it.',
    ],
    [
      'projections/**/*.ts',
      ['app', 'bin', 'routes', 'workers'],
      'projections read events and write read models; they never reach up to routes, workers or the app.',
    ],
    [
      'queries/**/*.ts',
      ['app', 'bin', 'routes', 'workers'],
      'queries read read models only; shared values belong in infra/.',
    ],
    [
      'commands/**/*.ts',
      ['app', 'bin', 'routes', 'workers'],
      'commands never import routes, workers or the app (what importers take of a runtime is commands/module-runtime.ts).',
    ],
    [
      'workers/**/*.ts',
      ['app', 'bin', 'routes'],
      'workers never import routes or the app (what they take of a runtime is commands/module-runtime.ts).',
    ],
    [
      'routes/**/*.ts',
      ['app', 'bin'],
      'routes never import the app or command-line tools (what they take of a runtime and the HTTP plumbing they share are in routes/http/).',
    ],
  ]),
  {
    // A call with more than three arguments takes one named object (issue 40): positional lists
    // such as reserveSlug(ctx, scope, given, base, owner, refuse, ownerExists) were read by position.
    files: ['commands/**/*.ts', 'queries/**/*.ts'],
    rules: { 'max-params': ['error', 3] },
  },
  {
    files: ['widget/**/*.js'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        HTMLElement: 'readonly',
        console: 'readonly',
      },
    },
  },
);
