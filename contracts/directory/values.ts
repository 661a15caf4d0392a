import { ValidationError } from '../../infra/errors.js';
import { normalizeOrigin } from '../../infra/net/origin.js';

/** The library's subscription plans; only some include the API and the widget (CONTRACT.md section 4). */
export const PLANS = ['basic', 'plus', 'trial'] as const;
export type Plan = (typeof PLANS)[number];
export const API_PLANS: readonly Plan[] = ['plus', 'trial'];

export const ACCESS_VALUES = ['open', 'subscription', 'trial', 'restricted'] as const;
export type Access = (typeof ACCESS_VALUES)[number];

/** Handles name subjects, types, databases and lists in URLs, so they stay URL-safe. */
export const HANDLE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';
const HANDLE = new RegExp(HANDLE_PATTERN);
export const BRAND_COLOR_PATTERN = '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$';
const BRAND_COLOR = new RegExp(BRAND_COLOR_PATTERN);

export function isPlan(value: unknown): value is Plan {
  return PLANS.some((plan) => plan === value);
}

export function isAccess(value: unknown): value is Access {
  return ACCESS_VALUES.some((access) => access === value);
}

export function planAllowsApi(plan: string | null | undefined): boolean {
  return API_PLANS.some((apiPlan) => apiPlan === plan);
}

export function isHandle(value: unknown): value is string {
  return typeof value === 'string' && HANDLE.test(value);
}

export function isBrandColor(value: unknown): value is string {
  return typeof value === 'string' && BRAND_COLOR.test(value);
}

export function requireHandle(value: string, field: string): void {
  if (!isHandle(value)) {
    throw ValidationError.field(
      field,
      'Use 1 to 100 letters, digits, ".", "-" and "_", starting with a letter or digit.',
    );
  }
}

export function requireText(value: string, field: string, max = 1000): void {
  if (!value.trim()) throw ValidationError.field(field, 'Must not be empty.');
  if (value.length > max) throw ValidationError.field(field, `Must be at most ${max} characters.`);
}

/** Allowed origins in canonical form, without duplicates; throws for an entry that is not an origin. */
export function normalizeOrigins(values: readonly string[], field: string): string[] {
  const out: string[] = [];
  for (const value of values) {
    const origin = normalizeOrigin(value);
    if (!origin) throw ValidationError.field(field, `"${value}" is not an origin such as https://library.example.edu.`);
    if (!out.includes(origin)) out.push(origin);
  }
  return out;
}
