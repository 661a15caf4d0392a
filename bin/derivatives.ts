import { parseArgs } from 'node:util';
import { loadConfig } from '../infra/config.js';
import { appModules } from '../app/modules.js';
import { platformModule } from '../app/modules/platform.js';
import { createRuntime } from '../app/runtime.js';
import { errorMessage } from '../infra/errors.js';
import { mediaWithImages } from '../queries/platform/media-files.js';
import { runDerivativesJob, type DerivativesOutcome } from '../workers/platform/derivatives.js';
import { progressBar } from './progress.js';

const USAGE = 'Usage: npm run derivatives [-- --item ID | --item-set ID]';

function positiveId(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value)) throw new Error(`${flag} takes a positive integer id, not "${value}".\n${USAGE}`);
  return Number(value);
}

/**
 * `npm run derivatives`: makes the derivatives (the tiled pyramid and the large, medium and square
 * JPEGs) of every media image again, or of one item's (`--item ID`) or one item set's items'
 * (`--item-set ID`), with a progress bar. It records them as the worker does
 * (MediaDerivativesMade), so a running server on the same DATA_DIR serves the new ones at once;
 * an image that cannot be decoded is reported and recorded, never retried in a loop.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { item: { type: 'string' }, 'item-set': { type: 'string' } } });
  const scope = { itemId: positiveId(values.item, '--item'), itemSetId: positiveId(values['item-set'], '--item-set') };
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false });
  try {
    const { images } = runtime.module(platformModule);
    const todo = await mediaWithImages(runtime.documents, scope);
    const bar = progressBar('derivatives', todo.length, { eta: true });
    const outcomes: Record<DerivativesOutcome, number[]> = { made: [], failed: [], skipped: [] };
    for (const media of todo) {
      const outcome = await runDerivativesJob(runtime, images, {
        media_id: media.id,
        sha256: media.sha256,
        replace: true,
      });
      outcomes[outcome].push(media.id);
      bar.tick();
    }
    bar.stop();
    console.log(`Made the derivatives of ${outcomes.made.length} of ${todo.length} media images.`);
    if (outcomes.failed.length > 0)
      console.log(
        `${outcomes.failed.length} could not be decoded (kept, with no derivatives): media ${outcomes.failed.join(', ')}.`,
      );
    if (outcomes.skipped.length > 0)
      console.log(
        `${outcomes.skipped.length} changed or were deleted meanwhile: media ${outcomes.skipped.join(', ')}.`,
      );
    return 0;
  } finally {
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Derivatives failed: ${errorMessage(error)}`);
    process.exit(1);
  },
);
