/** What Date#toISOString makes: always UTC, always this shape. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * `YYYY-MM-DD HH:MM:SS` in UTC: how the seeds write times and how the blog stores and compares
 * them. Event metadata holds toISOString's form, which is cut into this one directly, without
 * a Date: read models hand every representation its times in that form, and parsing and
 * formatting two of them cost more than the rest of a post's representation.
 */
export function sqlTimestamp(at: Date | string): string {
  if (typeof at === 'string')
    return ISO_UTC.test(at) ? `${at.slice(0, 10)} ${at.slice(11, 19)}` : formatted(new Date(at));
  // "Now" is asked for on every list request and every command: within one second the text is the same.
  const second = Math.floor(at.getTime() / 1000);
  if (second === lastSecond) return lastText;
  const text = formatted(at);
  lastSecond = second;
  lastText = text;
  return text;
}

let lastSecond = Number.NaN;
let lastText = '';

function formatted(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
