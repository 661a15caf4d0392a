import { existsSync } from 'node:fs';
import t from 'tap';
import { COMPILED_MODEL_THREAD } from '../../infra/embedder/sentence-model/start-thread.js';
import { compiledEventLogThread } from '../../infra/event-store/start-thread.js';
import { TEXT_INDEX_THREAD } from '../../infra/document-store/text-index-writer.js';
import { projectFile } from '../../infra/project-root.js';
import { compiledThreadScript } from '../../infra/worker-thread.js';

// Compiled, threads are found by their place in dist/ (the bundle npm start runs is elsewhere):
// each such place must be where tsc writes a source file that exists.
const compiled = [
  compiledEventLogThread('commit-thread'),
  compiledEventLogThread('checkpoint-thread'),
  COMPILED_MODEL_THREAD,
  compiledThreadScript(TEXT_INDEX_THREAD),
];

for (const file of compiled) {
  t.test(`${file} is tsc's output of a thread's source`, async (t) => {
    t.match(file, /^dist\/.*\.js$/);
    t.ok(existsSync(projectFile(file.replace(/^dist\//, '').replace(/\.js$/, '.ts'))), 'its source exists');
  });
}
