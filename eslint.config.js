import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/*
 * Layers run one way. Bottom to top, each importing only the layers listed beside it:
 *
 *   infra/        ports, adapters, value helpers: nothing
 *   contracts/    events, shared values, read-model documents and accessors, services: infra
 *   projections/  fold events into read models: contracts, infra
 *   queries/      read the read models: contracts, infra
 *   commands/     deciders and handlers: queries, contracts, infra
 *   workers/      jobs: commands, queries, projections, contracts, infra
 *   routes/       HTTP: commands, queries, contracts, infra (what a route needs of a worker is a
 *                 service declared below it, implemented in workers/, wired by app/modules/)
 *   app/, bin/    the composition root and the command-line tools: anything
 *
 * So queries never import commands or projections, projections never import queries, and routes
 * never import workers. Every relative import of a file in a layer is checked, dynamic and type
 * imports too; there is no exception (test/lint/layers.test.ts probes it).
 */
const LAYERS = {
  infra: [],
  contracts: ['infra'],
  projections: ['contracts', 'infra'],
  queries: ['contracts', 'infra'],
  commands: ['queries', 'contracts', 'infra'],
  workers: ['commands', 'queries', 'projections', 'contracts', 'infra'],
  routes: ['commands', 'queries', 'contracts', 'infra'],
};

/** The top-level folder of a path, or null outside the project. */
function topFolder(file) {
  const relative = path.relative(ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? null : relative.split(path.sep)[0];
}

/** `layers/one-way`: a relative import from a layer reaches only the layers LAYERS lists for it. */
const oneWay = {
  meta: {
    type: 'problem',
    docs: { description: 'Layers run one way (the table in eslint.config.js).' },
    messages: {
      upward: '{{from}}/ imports only {{allowed}}: not {{to}}/ (layers run one way, eslint.config.js).',
    },
    schema: [],
  },
  create(context) {
    const from = topFolder(context.filename);
    if (!Object.hasOwn(LAYERS, from)) return {};
    const allowed = LAYERS[from];
    function check(node) {
      if (node?.type !== 'Literal' || typeof node.value !== 'string' || !node.value.startsWith('.')) return;
      const to = topFolder(path.resolve(path.dirname(context.filename), node.value));
      if (to === null || to === from || allowed.includes(to)) return;
      const names = allowed.length ? allowed.map((layer) => `${layer}/`).join(', ') : 'its own files';
      context.report({ node, messageId: 'upward', data: { from, to, allowed: names } });
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportType: (node) => check(node.argument?.literal),
      TSExternalModuleReference: (node) => check(node.expression),
    };
  },
};

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
  {
    files: ['**/*.ts'],
    plugins: { layers: { rules: { 'one-way': oneWay } } },
    rules: { 'layers/one-way': 'error' },
  },
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
