import t from 'tap';
import { errorField, errorMessage } from '../../infra/errors.js';

t.test('errorField reads a caught error without assuming what was thrown', async (t) => {
  const missing = Object.assign(new Error('no such file'), { code: 'ENOENT' });
  t.equal(errorField(missing, 'code'), 'ENOENT');
  t.equal(errorField({ statusCode: 413 }, 'statusCode'), 413);
  t.equal(errorField(new Error('plain'), 'code'), undefined);
  for (const thrown of [null, undefined, 'text', 42])
    t.equal(errorField(thrown, 'code'), undefined, `${String(thrown)} has no code`);
});

t.test("errorMessage is an Error's message, or the text of anything else thrown", async (t) => {
  t.equal(errorMessage(new RangeError('out of range')), 'out of range');
  t.equal(errorMessage('just text'), 'just text');
  t.equal(errorMessage(undefined), 'undefined');
});
