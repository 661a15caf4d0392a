import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Run by tap once every test file has ended (`after` in .taprc). The test directories are kept
 * until then (`save-fixture`): tap otherwise removes a test's directory before the teardowns
 * registered after it, so a runtime closed in one would commit and end its threads over files
 * already gone.
 */
rmSync(fileURLToPath(new URL('../.tap/fixtures', import.meta.url)), { recursive: true, force: true });
