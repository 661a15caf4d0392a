import t from 'tap';
import { sqlTimestamp } from '../../../infra/clock/sql-timestamp.js';

const viaDate = (at: Date | string): string =>
  (typeof at === 'string' ? new Date(at) : at).toISOString().slice(0, 19).replace('T', ' ');

t.test('toISOString strings are cut to the SQL form exactly as a Date would format them', async (t) => {
  for (let i = 0; i < 2000; i++) {
    const at = new Date(Date.UTC(1970, 0, 1) + Math.floor((((i * 7919) % 2000) * 31_557_600_000) / 20) + i * 1_234_567);
    const iso = at.toISOString();
    if (sqlTimestamp(iso) !== viaDate(iso) || sqlTimestamp(at) !== viaDate(at)) t.fail(iso);
  }
  t.equal(sqlTimestamp('2026-11-23T21:34:52.123Z'), '2026-11-23 21:34:52');
});

t.test('other forms go through a Date, so zones are turned to UTC', async (t) => {
  t.equal(sqlTimestamp('2026-01-01T10:00:00+02:00'), '2026-01-01 08:00:00');
  t.equal(sqlTimestamp('2026-01-01T10:00:00Z'), '2026-01-01 10:00:00');
  t.equal(sqlTimestamp(new Date(Date.UTC(2026, 5, 7, 8, 9, 10))), '2026-06-07 08:09:10');
  t.throws(() => sqlTimestamp('not a time'), RangeError);
});

t.test('dates of one second reuse its text; any other second, earlier or later, gets its own', async (t) => {
  const base = Date.UTC(2026, 10, 24, 1, 2, 3);
  t.equal(sqlTimestamp(new Date(base)), '2026-11-24 01:02:03');
  t.equal(sqlTimestamp(new Date(base + 999)), '2026-11-24 01:02:03');
  t.equal(sqlTimestamp(new Date(base + 1000)), '2026-11-24 01:02:04');
  t.equal(sqlTimestamp(new Date(base - 1)), '2026-11-24 01:02:02');
  t.equal(sqlTimestamp(new Date(base - 86_400_000)), '2026-11-23 01:02:03');
  t.throws(() => sqlTimestamp(new Date(Number.NaN)), RangeError, 'an invalid date is still refused');
  t.equal(sqlTimestamp(new Date(base)), '2026-11-24 01:02:03');
});
