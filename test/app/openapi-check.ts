import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';

/**
 * Checks real answers against the OpenAPI document the app serves, as a client generated from it
 * would (Portman/Newman's contract tests, openapi-response-validator): the status is declared for
 * the operation, the media type for that status, the body matches the declared schema (ajv, with
 * the document's own schemas), and each response header the document marks `required` is sent,
 * and every declared header that is sent matches its schema.
 */

interface Header {
  required?: boolean;
  schema?: { type?: string };
}
interface Answer {
  content?: Record<string, { schema: object }>;
  headers?: Record<string, Header>;
}
interface Operation {
  responses: Record<string, Answer>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** Where a check reports: a mismatch fails the test it runs in. */
type Reporter = Pick<Test, 'ok' | 'fail' | 'equal'>;

/** Headers that carry part of the API's contract: an answer that sends one must say so. */
const DOCUMENTED_WHEN_SENT = [
  'etag',
  'cache-control',
  'vary',
  'location',
  'link',
  'platform-total-results',
  'retry-after',
  'content-range',
];

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Every operation of the document, `get /api/items/{id}`. */
export function operationsOf(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((method) => OPERATION_METHODS.has(method))
      .map((method) => `${method} ${path}`),
  );
}

/** `application/json; charset=utf-8` → `application/json`. */
export const mediaTypeOf = (res: LightMyRequestResponse): string =>
  String(res.headers['content-type'] ?? '')
    .split(';')[0]
    .trim();

/** A header's value as its schema types it: `Platform-Total-Results: 3` is the integer 3. */
function typedHeader(value: string, schema: { type?: string }): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

export class OpenApiCheck {
  /** Operations a request was checked against, `get /api/items/{id}`. */
  readonly exercised = new Set<string>();
  // OpenAPI 3.0 schemas: `nullable`, `format: binary` and descriptive keywords are not JSON Schema's strict vocabulary.
  private readonly ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly doc: OpenApiDocument,
    private readonly t: Reporter,
  ) {}

  private validator(schema: object): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  /** Sends the request and checks its answer against `operation` (`post /api/items`); `expected` is the status the case is about. */
  async answer(operation: string, request: InjectOptions, expected: number): Promise<LightMyRequestResponse> {
    const { t } = this;
    const [method, path] = operation.split(' ');
    const documented = this.doc.paths[path]?.[method];
    const res = await this.app.inject(request);
    const name = `${operation} → ${res.statusCode}`;
    if (!documented) {
      t.fail(`${operation} is an operation of the document`);
      return res;
    }
    this.exercised.add(operation);
    t.equal(res.statusCode, expected, `${name}: the status this case is about`);
    const declared = documented.responses[String(res.statusCode)];
    if (!declared) {
      t.fail(`${name} is a documented status (${Object.keys(documented.responses).join(', ')})`, {
        body: res.body.slice(0, 500),
      });
      return res;
    }
    this.checkHeaders(name, res, declared);
    if (!declared.content) {
      t.equal(res.rawPayload.length, 0, `${name}: no body, as documented`);
      return res;
    }
    const mediaType = mediaTypeOf(res);
    const body = declared.content[mediaType];
    if (!body) {
      t.fail(
        `${name}: ${mediaType || 'no Content-Type'} is a documented media type (${Object.keys(declared.content).join(', ')})`,
      );
      return res;
    }
    if ((body.schema as { format?: string }).format === 'binary') return res;
    const validate = this.validator(body.schema);
    const value: unknown = /^application\/(.+\+)?json$/.test(mediaType) ? JSON.parse(res.body) : res.body;
    t.ok(validate(value), `${name}: the ${mediaType} body matches the documented schema`, {
      errors: validate.errors,
      body: res.body.slice(0, 500),
    });
    return res;
  }

  private checkHeaders(name: string, res: LightMyRequestResponse, declared: Answer): void {
    const documented = new Set(Object.keys(declared.headers ?? {}).map((header) => header.toLowerCase()));
    for (const header of DOCUMENTED_WHEN_SENT) {
      if (res.headers[header] !== undefined)
        this.t.ok(documented.has(header), `${name}: the ${header} header it sends is documented`);
    }
    for (const [header, definition] of Object.entries(declared.headers ?? {})) {
      const sent = res.headers[header.toLowerCase()];
      if (sent === undefined) {
        if (definition.required) this.t.fail(`${name}: the ${header} header the document requires is sent`);
        continue;
      }
      const schema = definition.schema ?? {};
      const validate = this.validator(schema);
      for (const value of Array.isArray(sent) ? sent : [String(sent)]) {
        this.t.ok(validate(typedHeader(value, schema)), `${name}: ${header} matches its documented schema`, {
          value,
          errors: validate.errors,
        });
      }
    }
  }
}
