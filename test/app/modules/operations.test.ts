import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { testConfig } from '../../test-config.js';
import { createRuntime } from '../../../app/runtime.js';
import { appModules } from '../../../app/modules.js';

t.test('a server start removes the partial uploads a crashed process left, not a live one', async (t) => {
  const dataDir = t.testdir();
  const tmp = join(dataDir, 'files', 'tmp');
  mkdirSync(tmp, { recursive: true });
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  const crashed = join(tmp, `${encodeURIComponent(hostname())}@${child.pid}@left.part`);
  const live = join(tmp, `${encodeURIComponent(hostname())}@${process.ppid}@live.part`);
  writeFileSync(crashed, 'half an upload');
  writeFileSync(live, 'an upload in flight');
  const runtime = await createRuntime(testConfig(dataDir), { modules: appModules });
  t.teardown(() => runtime.close());
  t.notOk(existsSync(crashed), "the dead process's partial upload is gone");
  t.ok(existsSync(live), "a live process's upload is left alone");
});
