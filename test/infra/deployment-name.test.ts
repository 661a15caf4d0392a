import { createHash } from 'node:crypto';
import t from 'tap';
import { deploymentName } from '../../infra/deployment-name.js';
import { mongoDatabaseAddress } from '../../infra/document-store/mongo-url.js';

t.test('without MONGO_URL a deployment is its data directory, named as before', async (t) => {
  const name = deploymentName({ dataDir: '/srv/data' });
  // The name earlier versions gave it (a hash of DATA_DIR): sessions and queued jobs in Redis
  // and the groups' offsets in Kafka are still found after an upgrade.
  t.equal(name, `collections-${createHash('sha256').update('/srv/data').digest('hex').slice(0, 12)}`);
  t.match(name, /^collections-[0-9a-f]{12}$/);
  t.equal(deploymentName({ dataDir: '/srv/data' }), name, 'servers sharing a data directory share it');
  t.not(deploymentName({ dataDir: '/tmp/test-1' }), name, 'other data directories do not');
  t.equal(
    deploymentName({ dataDir: 'data' }),
    deploymentName({ dataDir: `${process.cwd()}/data` }),
    'relative: where it is',
  );
});

t.test('with MONGO_URL a deployment is its MongoDB database, whatever the data directory', async (t) => {
  const url = 'mongodb://db.example.org:27017/library';
  const one = deploymentName({ dataDir: '/srv/host-a', mongoUrl: url });
  t.equal(deploymentName({ dataDir: '/srv/host-b', mongoUrl: url }), one, 'two hosts, two data directories, one name');
  t.not(one, deploymentName({ dataDir: '/srv/host-a' }), 'not the name of the embedded read models');
  t.not(
    one,
    deploymentName({ dataDir: '/srv/host-a', mongoUrl: 'mongodb://db.example.org:27017/museum' }),
    'another database',
  );
  t.not(
    one,
    deploymentName({ dataDir: '/srv/host-a', mongoUrl: 'mongodb://other.example.org/library' }),
    'another server',
  );
  t.equal(
    deploymentName({ dataDir: '/x', mongoUrl: 'mongodb://app:secret@DB.example.org/library?tls=true&w=majority' }),
    one,
    'credentials, options, case and the default port do not make another deployment',
  );
  t.notMatch(one, /example|library/, 'the URL is not spelled out in key or group names');
});

t.test("a MongoDB URL's database address", async (t) => {
  t.equal(mongoDatabaseAddress('mongodb://user:p%40ss@b,a:27018/lib?replicaSet=rs0'), 'mongodb://a:27018,b:27017/lib');
  t.equal(mongoDatabaseAddress('mongodb://mongo:27017'), 'mongodb://mongo:27017/collections', 'the default database');
  t.equal(mongoDatabaseAddress('mongodb://mongo:27017/?tls=true'), 'mongodb://mongo:27017/collections');
  t.equal(mongoDatabaseAddress('mongodb+srv://u:p@Cluster.example.net/app'), 'mongodb+srv://cluster.example.net/app');
});
