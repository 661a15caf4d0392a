import cronParser from 'cron-parser';
import { errorMessage } from '../../infra/errors.js';

/** A cron expression and the time zone its times of day are read in. */
export interface CronSchedule {
  expression: string;
  timezone: string;
}

/** Runs closer together than this are refused: a backup every few minutes would fill the disk and never rest. */
export const MIN_INTERVAL_MINUTES = 15;

const MINUTES_PER_DAY = 24 * 60;

/** The variables a schedule comes from, so every refusal names the one to fix. */
export interface ScheduleVariables {
  expression: string;
  timezone: string;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The shortest time between two runs, in minutes, judged from the times of day the expression
 * names as if it ran every day (the last run of a day to the first of the next counts too): a
 * day-of-month or weekday field can only space the runs further apart. Seconds (a sixth field
 * in front) count when they name more than one.
 */
function shortestIntervalMinutes(fields: {
  second: readonly number[];
  minute: readonly number[];
  hour: readonly number[];
}): number {
  if (fields.second.length > 1) return (fields.second[1] - fields.second[0]) / 60;
  const times = fields.hour.flatMap((h) => fields.minute.map((m) => h * 60 + m)).sort((a, b) => a - b);
  let shortest = times[0] + MINUTES_PER_DAY - times[times.length - 1];
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i] - times[i - 1]);
  return shortest;
}

/**
 * Checks a schedule from the environment: five fields (minute hour day-of-month month
 * day-of-week), or six with seconds first, an IANA time zone, and runs at least
 * MIN_INTERVAL_MINUTES apart. Throws an Error naming the variable to fix.
 */
export function parseCronSchedule(expression: string, timezone: string, names: ScheduleVariables): CronSchedule {
  const text = expression.trim().replace(/\s+/g, ' ');
  const shape = `a cron expression such as "0 3 * * *" (minute hour day-of-month month day-of-week, ${timezone} time)`;
  if (!isTimeZone(timezone))
    throw new Error(`${names.timezone} must be an IANA time zone such as UTC or Europe/Lisbon, got "${timezone}".`);
  const fieldCount = text.split(' ').length;
  if (fieldCount !== 5 && fieldCount !== 6)
    throw new Error(
      `${names.expression} must be ${shape}, got "${expression}" (${fieldCount} field${fieldCount === 1 ? '' : 's'}, not 5).`,
    );
  let parsed: ReturnType<typeof cronParser.parseExpression>;
  try {
    parsed = cronParser.parseExpression(text, { tz: timezone });
  } catch (error) {
    throw new Error(`${names.expression} must be ${shape}, got "${expression}": ${errorMessage(error)}.`);
  }
  const interval = shortestIntervalMinutes(parsed.fields);
  if (interval < MIN_INTERVAL_MINUTES) {
    throw new Error(
      `${names.expression} must not run more often than every ${MIN_INTERVAL_MINUTES} minutes, got "${expression}" (runs ${formatMinutes(interval)} apart).`,
    );
  }
  return { expression: text, timezone };
}

function formatMinutes(minutes: number): string {
  return minutes < 1 ? `${Math.round(minutes * 60)} seconds` : `${minutes} minutes`;
}

/** The first run strictly after `after`. */
export function nextRun(schedule: CronSchedule, after: Date): Date {
  return cronParser.parseExpression(schedule.expression, { tz: schedule.timezone, currentDate: after }).next().toDate();
}
