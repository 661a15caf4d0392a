import t from 'tap';
import { boundaryOf, ClosingDelimiterWatch } from '../../../routes/http/closing-delimiter.js';

const BODY = '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc\r\n--XyZ--\r\n';

t.test('the close delimiter is seen however the body is split into chunks', async (t) => {
  for (let size = 1; size <= BODY.length; size++) {
    const watch = new ClosingDelimiterWatch('XyZ');
    for (let at = 0; at < BODY.length; at += size) watch.push(Buffer.from(BODY.slice(at, at + size)));
    if (!watch.seen) t.fail(`not seen in chunks of ${size}`);
  }
  t.pass('seen with every chunk size');
});

t.test('a body cut anywhere before it has none', async (t) => {
  const end = BODY.indexOf('--XyZ--') + '--XyZ--'.length;
  for (let cut = 0; cut < end; cut++) {
    const watch = new ClosingDelimiterWatch('XyZ');
    for (const byte of Buffer.from(BODY.slice(0, cut))) watch.push(Buffer.from([byte]));
    if (watch.seen) t.fail(`seen in a body cut at ${cut}`);
  }
  const partDelimiterOnly = new ClosingDelimiterWatch('XyZ');
  partDelimiterOnly.push(Buffer.from('--XyZ\r\n\r\nabc\r\n--XyZ\r\n'));
  t.notOk(partDelimiterOnly.seen, 'a part delimiter is not the close delimiter');
});

t.test('the boundary parameter, quoted or not', async (t) => {
  t.equal(boundaryOf('multipart/form-data; boundary=XyZ'), 'XyZ');
  t.equal(boundaryOf('multipart/form-data; charset=utf-8; BOUNDARY="a b:c"'), 'a b:c');
  t.equal(boundaryOf('multipart/form-data'), null);
  t.equal(boundaryOf(undefined), null);
});
