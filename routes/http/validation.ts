import { Ajv, type AnySchema, type Options, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

/**
 * Bodies parsed from a form (application/x-www-form-urlencoded). A form carries every value as
 * text, so its fields are coerced to the schema's types ("3" to 3); a JSON body says what type
 * each value is, and a wrong one is a validation error rather than a value changed behind the
 * client's back ("title": 5 is refused, not stored as "5").
 */
const formBodies = new WeakSet<object>();

export function markFormBody<T extends object>(body: T): T {
  formBodies.add(body);
  return body;
}

/** True for a body parsed from a form: its fields are text, and a repeated key is a list. */
export function isFormBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && formBodies.has(body);
}

/** Fastify's own Ajv settings (@fastify/ajv-compiler), except that unknown fields are left alone. */
const SHARED_OPTIONS: Options = { useDefaults: true, removeAdditional: false, addUsedSchema: false, allErrors: false };

function ajvWith(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...SHARED_OPTIONS, coerceTypes });
  // ajv-formats is a CommonJS module whose export is the plugin itself.
  (ajvFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
  return ajv;
}

/** Query strings, path parameters and headers are text too: coerced, as Fastify does by default. */
const coercing = ajvWith('array');
const strict = ajvWith(false);

/** The first field of coerced text that became an infinite number, e.g. `page=1e400`. */
function infiniteField(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  for (const [field, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) return field;
  }
  return null;
}

/**
 * Ajv coerces the text "1e400" to Infinity and then passes it as a number, even as an integer
 * (only values that arrive as numbers are checked for finiteness): a page of Infinity reached
 * the read models as a skip they could not take. Text never means an infinite number here.
 */
function refusingInfinity(compiled: () => ValidateFunction): Validator {
  const checked: Validator = (data: unknown) => {
    const validate = compiled();
    const valid = validate(data);
    const field = valid ? infiniteField(data) : null;
    if (field !== null) {
      checked.errors = [
        {
          instancePath: `/${field}`,
          schemaPath: '#/finite',
          keyword: 'finite',
          params: {},
          message: 'must be a finite number',
        },
      ];
      return false;
    }
    checked.errors = validate.errors;
    return valid;
  };
  return checked;
}

/**
 * The app's validator compiler: every part of a request is validated as Fastify would, except a
 * body that is not a form, which must hold the schema's types as they are.
 */
/**
 * A schema's validator, compiled when a request first needs it: Ajv compiling every route's
 * schemas was the largest part of a start (about 450 ms of 2.5 s in a profile), and most
 * servers never see most routes' form bodies. A test sends every documented route (test/fault/)
 * so a schema Ajv refuses still fails there.
 */
function onFirstUse(ajv: Ajv, schema: unknown): () => ValidateFunction {
  let compiled: ValidateFunction | undefined;
  return () => (compiled ??= ajv.compile(schema as AnySchema));
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const asText = refusingInfinity(onFirstUse(coercing, schema));
  if (httpPart !== 'body') return asText;
  const strictly = onFirstUse(strict, schema);
  const asIs: Validator = (data: unknown) => {
    const validate = strictly();
    const valid = validate(data);
    asIs.errors = validate.errors;
    return valid;
  };
  const validate: Validator = (data: unknown) => {
    const chosen: Validator = isFormBody(data) ? asText : asIs;
    const valid = chosen(data);
    validate.errors = chosen.errors;
    return valid;
  };
  return validate;
};
