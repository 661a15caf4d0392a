import t from 'tap';
import { loadConfig } from '../../app/config.js';
import { DependencyUnavailableError } from '../../infra/errors.js';
import { redactedAddress, startupError } from '../../infra/select.js';

t.test('an address keeps its scheme, hosts, ports and path, never its credentials or options', async (t) => {
  t.equal(redactedAddress('http://127.0.0.1:9200'), 'http://127.0.0.1:9200');
  t.equal(redactedAddress('https://elastic:p%40ss@es.example.org:9243/prefix'), 'https://es.example.org:9243/prefix');
  t.equal(redactedAddress('mongodb+srv://user:secret@cluster0.example.net/db?retryWrites=true&w=majority'), 'mongodb+srv://cluster0.example.net/db');
  t.equal(redactedAddress('mongodb://u:p@h1:27017,h2:27017/db?replicaSet=rs0'), 'mongodb://h1:27017,h2:27017/db');
  t.equal(redactedAddress('esdb://admin:changeit@127.0.0.1:2113?tls=false'), 'esdb://127.0.0.1:2113');
  t.equal(redactedAddress('kafka-1:9092,kafka-2:9092'), 'kafka-1:9092,kafka-2:9092', 'brokers hold no credentials');
});

t.test('a dependency unavailable at start: the variable and its address in one line', async (t) => {
  const config = loadConfig({ ELASTICSEARCH_URL: 'http://elastic:secret@127.0.0.1:1' });
  const error = startupError(new DependencyUnavailableError('vector index', 'The vector index is unavailable.'), config);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal((error as Error).message, 'Cannot start: vector index is unavailable at http://127.0.0.1:1. Check ELASTICSEARCH_URL or unset it to use the embedded default.');
  const other = new Error('not a dependency');
  t.equal(startupError(other, config), other, 'other errors pass through');
});
