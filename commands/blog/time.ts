import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

/**
 * Accepts `YYYY-MM-DD HH:MM:SS` (UTC) or an ISO 8601 date-time (with or without a zone; without
 * one it is UTC) and returns the stored form, or null when it is neither.
 */
export function normaliseTimestamp(value: string): string | null {
  const trimmed = value.trim();
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(trimmed)) {
    const parsed = new Date(`${trimmed.replace(' ', 'T')}Z`);
    return Number.isNaN(parsed.getTime()) || sqlTimestamp(parsed) !== trimmed ? null : trimmed;
  }
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;
  if (!iso.test(trimmed)) return null;
  const hasZone = /(Z|[+-]\d{2}:\d{2})$/.test(trimmed);
  const parsed = new Date(hasZone ? trimmed : `${trimmed}Z`);
  return Number.isNaN(parsed.getTime()) ? null : sqlTimestamp(parsed);
}
