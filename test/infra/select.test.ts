import t from 'tap';
import { loadConfig } from '../../app/config.js';
import { DependencyUnavailableError } from '../../infra/errors.js';
import { startupError } from '../../infra/select.js';

t.test('a dependency unavailable at start: the variable and its address in one line', async (t) => {
  const config = loadConfig({ ELASTICSEARCH_URL: 'http://elastic:secret@127.0.0.1:1' });
  const error = startupError(new DependencyUnavailableError('vector index', 'The vector index is unavailable.'), config);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal((error as Error).message, 'Cannot start: vector index is unavailable at 127.0.0.1:1. Check ELASTICSEARCH_URL or unset it to use the embedded default.');
  const other = new Error('not a dependency');
  t.equal(startupError(other, config), other, 'other errors pass through');
});
