import t from 'tap';
import { dependencyAddress } from '../../infra/dependency-address.js';

t.test('the hosts and ports of a URL, without credentials, path or options', async (t) => {
  t.equal(dependencyAddress('mongodb://127.0.0.1:27117/collections'), '127.0.0.1:27117');
  t.equal(
    dependencyAddress('mongodb://reader:s3cret@mongo:27017/library?authSource=admin'),
    'mongo:27017',
    'user and password left out',
  );
  t.equal(
    dependencyAddress('mongodb://a:1,b:2,c:3/multi?replicaSet=rs0'),
    'a:1,b:2,c:3',
    'every host of a replica set',
  );
  t.equal(dependencyAddress('mongodb+srv://user:p%40ss@cluster.example.net/app'), 'cluster.example.net');
  t.equal(
    dependencyAddress('mongodb://u:pa/ss@w@db.example.org:27017/x'),
    'db.example.org:27017',
    'a raw / or @ in the password',
  );
  t.equal(
    dependencyAddress('mongodb://db:27017/x?appName=a@b&tlsCertificateKeyFilePassword=secret'),
    'db:27017',
    'an @ among the options',
  );
  t.equal(dependencyAddress('mongodb://db:27017'), 'db:27017', 'no path');
  t.equal(dependencyAddress('esdb://127.0.0.1:2113?tls=false'), '127.0.0.1:2113');
  t.equal(dependencyAddress('redis://:secret@127.0.0.1:6379/0'), '127.0.0.1:6379');
  t.equal(dependencyAddress('kafka-1:9092,kafka-2:9092'), 'kafka-1:9092,kafka-2:9092', 'a broker list stays as it is');
});
