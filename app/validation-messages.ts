/**
 * Turns Ajv's validation issues into messages a person can act on: each names the field and what
 * it accepts ("status must be one of draft, pending, published."), instead of Ajv's words about
 * the schema ("must be equal to constant", "must match a schema in anyOf").
 */
export interface ValidationIssue {
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Field name → messages, in the order the fields failed. */
export type FieldMessages = Record<string, string[]>;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

/** `/o:item_set/0/o:id` → `o:item_set[0].o:id`; the root is named by what was validated (body, querystring...). */
function readablePath(pointer: string, root: string): string {
  if (!pointer) return root;
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}

/** The top-level field an issue belongs to (the key of the native error body). */
function fieldOf(issue: ValidationIssue, root: string): string {
  if (issue.keyword === 'required' && !issue.instancePath && typeof issue.params?.missingProperty === 'string') {
    return issue.params.missingProperty;
  }
  const first = (issue.instancePath ?? '').split('/')[1];
  return first ? first.replace(/~1/g, '/').replace(/~0/g, '~') : root;
}

function listOf(values: unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

function typeNames(types: unknown): string[] {
  const list = Array.isArray(types) ? types : String(types).split(',');
  return list.map((t) => TYPE_NAMES[String(t)] ?? String(t));
}

/** What a union accepts, from the issues of its branches: "one of a, b", "a string or null". */
function unionMessage(name: string, branches: ValidationIssue[]): string {
  const values: unknown[] = [];
  const types: string[] = [];
  for (const branch of branches) {
    if (branch.keyword === 'const') values.push(branch.params?.allowedValue);
    else if (branch.keyword === 'enum' && Array.isArray(branch.params?.allowedValues))
      values.push(...branch.params.allowedValues);
    else if (branch.keyword === 'type') types.push(...typeNames(branch.params?.type));
  }
  const accepted = [...(values.length > 0 ? [`one of ${listOf(values)}`] : []), ...new Set(types)];
  if (accepted.length === 0) return `${name} is not an accepted value.`;
  return `${name} must be ${accepted.join(' or ')}.`;
}

function issueMessage(issue: ValidationIssue, name: string): string {
  const params = issue.params ?? {};
  switch (issue.keyword) {
    case 'required':
      return 'This field is required.';
    case 'type':
      return `${name} must be ${typeNames(params.type).join(' or ')}.`;
    case 'enum':
      return `${name} must be one of ${listOf(Array.isArray(params.allowedValues) ? params.allowedValues : [])}.`;
    case 'const':
      return `${name} must be ${listOf([params.allowedValue])}.`;
    case 'minLength':
      return params.limit === 1
        ? `${name} must not be empty.`
        : `${name} must be at least ${String(params.limit)} characters long.`;
    case 'maxLength':
      return `${name} must be at most ${String(params.limit)} characters long.`;
    case 'minimum':
      return `${name} must be at least ${String(params.limit)}.`;
    case 'maximum':
      return `${name} must be at most ${String(params.limit)}.`;
    case 'exclusiveMinimum':
      return `${name} must be greater than ${String(params.limit)}.`;
    case 'exclusiveMaximum':
      return `${name} must be less than ${String(params.limit)}.`;
    case 'minItems':
      return `${name} must have at least ${String(params.limit)} entries.`;
    case 'maxItems':
      return `${name} must have at most ${String(params.limit)} entries.`;
    case 'uniqueItems':
      return `${name} must not repeat an entry.`;
    case 'pattern':
      return `${name} is not in the expected format (${String(params.pattern)}).`;
    case 'format':
      return `${name} must be a valid ${String(params.format)}.`;
    case 'additionalProperties':
      return `${name} has a key that is not accepted: ${String(params.additionalProperty)}.`;
    default:
      return `${name} ${issue.message ?? 'is not accepted'}.`;
  }
}

/**
 * Messages per top-level field. A union's branches are told as one message for the union;
 * `root` names what was validated when the issue is about it as a whole ("body").
 */
export function describeIssues(issues: readonly ValidationIssue[], root = 'body'): FieldMessages {
  const unions = issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  const branchesOf = (union: ValidationIssue) =>
    issues.filter(
      (i) => i !== union && union.schemaPath !== undefined && (i.schemaPath ?? '').startsWith(`${union.schemaPath}/`),
    );
  const inBranch = new Set(unions.flatMap(branchesOf));
  const fields: FieldMessages = {};
  for (const issue of issues) {
    if (inBranch.has(issue)) continue;
    const name = readablePath(issue.instancePath ?? '', root);
    const message = unions.includes(issue) ? unionMessage(name, branchesOf(issue)) : issueMessage(issue, name);
    const list = (fields[fieldOf(issue, root)] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return fields;
}

/** The first message, for surfaces whose error body holds one message. */
export function firstFieldMessage(fields: FieldMessages): string {
  const [field, messages] = Object.entries(fields)[0] ?? ['body', ['The request is not valid.']];
  const message = messages[0];
  return message === 'This field is required.' ? `${field} is required.` : message;
}
