import { ValidationError } from '../../infra/errors.js';
import type { QuestionFilter } from '../../infra/question-log/port.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** `1`/`true` and `0`/`false`, as the blog's flags. */
export function parseAnswered(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw ValidationError.field('answered', 'answered must be 1, true, 0 or false.');
}

/**
 * A day (`2026-05-01`, UTC) or a moment (`2026-05-01 14:30:00`, UTC unless it names an offset).
 * A day as `until` takes the whole day in: the range ends where the next day begins.
 */
export function parseMoment(value: string | undefined, field: 'since' | 'until'): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const text = value.trim();
  let date: Date | null = null;
  if (DATE.test(text)) {
    date = new Date(`${text}T00:00:00Z`);
    if (field === 'until') date = new Date(date.getTime() + DAY_MS);
  } else if (DATE_TIME.test(text)) {
    const iso = text.replace(' ', 'T');
    date = new Date(/(Z|[+-]\d{2}:\d{2})$/.test(iso) ? iso : `${iso}Z`);
    // `until` with a time covers that moment itself.
    if (field === 'until') date = new Date(date.getTime() + 1);
  }
  if (!date || Number.isNaN(date.getTime())) {
    throw ValidationError.field(
      field,
      `${field} must be a date (YYYY-MM-DD) or a date and time (YYYY-MM-DD HH:MM:SS, UTC).`,
    );
  }
  return date;
}

export interface RangeQuery {
  site_id?: number;
  since?: string;
  until?: string;
}

/** The filters both endpoints share; an empty range (since after until) is refused. */
export function rangeFilter(query: RangeQuery): QuestionFilter {
  const since = parseMoment(query.since, 'since');
  const until = parseMoment(query.until, 'until');
  if (since && until && since >= until) throw ValidationError.field('until', 'until must be after since.');
  const filter: QuestionFilter = {};
  if (query.site_id !== undefined) filter.siteId = query.site_id;
  if (since) filter.since = since;
  if (until) filter.until = until;
  return filter;
}
