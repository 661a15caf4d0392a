import t from 'tap';
import { buildTestApp, json, ROLE_USERS, sessionFor } from '../../helper.js';
import { multipart, PNG } from './support.js';

/** A multipart body cut off inside its last part: no closing boundary follows. */
function cutOff(parts: { name: string; filename?: string; content: string }[]): {
  payload: string;
  headers: Record<string, string>;
} {
  const body = parts
    .map(
      ({ name, filename, content }) =>
        `--cut\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${content}\r\n`,
    )
    .join('');
  return { payload: body, headers: { 'content-type': 'multipart/form-data; boundary=cut' } };
}

async function withinSeconds<T>(answer: Promise<T>, seconds: number): Promise<T | 'no answer'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'no answer'>((resolve) => {
    timer = setTimeout(() => resolve('no answer'), seconds * 1000);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

t.test('a multipart body that ends inside a file is a 400 at once, not a request left hanging', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const cookie = await sessionFor(app, 'editor');
  const uploaded = await app.inject({
    method: 'POST',
    url: '/api/asset-picker/assets',
    ...withCookie(multipart([{ name: 'file[0]', filename: 'a.png', content: PNG }]), cookie),
  });
  t.equal(uploaded.statusCode, 201, 'a whole body is taken');
  const assetId = json<{ asset: { id: number } }>(uploaded).asset.id;

  const cases = [
    {
      label: 'the file',
      method: 'POST' as const,
      url: '/api/asset-picker/assets',
      parts: [{ name: 'file[0]', filename: 'a.png', content: 'PNG' }],
    },
    {
      label: 'an extra file after others',
      method: 'POST' as const,
      url: '/api/asset-picker/assets',
      parts: [
        { name: 'o:name', filename: 'a.exe', content: 'x' },
        { name: 'file', filename: 'b.png', content: 'data' },
      ],
    },
    {
      label: 'a replacement',
      method: 'PUT' as const,
      url: `/api/asset-picker/assets/${assetId}/replace`,
      parts: [{ name: 'file', filename: 'a.png', content: 'PNG' }],
    },
  ];
  for (const { label, method, url, parts } of cases) {
    const res = await withinSeconds(app.inject({ method, url, ...withCookie(cutOff(parts), cookie) }), 5);
    if (res === 'no answer') {
      t.fail(`${label}: no answer within 5 s`);
      continue;
    }
    t.equal(res.statusCode, 400, label);
    t.same(
      json(res),
      { status: 'error', message: 'The multipart body ended inside a file, before its closing boundary.' },
      label,
    );
  }
  const list = json<{ total: number }>(
    await app.inject({ method: 'GET', url: '/api/asset-picker/assets', headers: { cookie } }),
  );
  t.equal(list.total, 1, 'nothing was stored from the cut bodies');
});

function withCookie(body: { payload: Buffer | string; headers: Record<string, string> }, cookie: string) {
  return { payload: body.payload, headers: { ...body.headers, cookie } };
}
