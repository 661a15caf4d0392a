import t from 'tap';
import { kafkaNamesFor } from '../../../infra/event-bus/kafka-names.js';

t.test('each data directory has its own topic and groups', async (t) => {
  const one = kafkaNamesFor({ dataDir: '/srv/one' });
  const two = kafkaNamesFor({ dataDir: '/srv/two' });
  t.not(one.topic, two.topic, 'two embedded logs, two topics');
  t.not(one.groupPrefix, two.groupPrefix, 'two sets of read models, two sets of groups');
  t.same(kafkaNamesFor({ dataDir: '/srv/one' }), one, 'the same names at every start');
  t.same(
    kafkaNamesFor({ dataDir: `${process.cwd()}/data` }),
    kafkaNamesFor({ dataDir: 'data' }),
    'a relative directory is named by where it is',
  );
  t.match(one.topic, /^[A-Za-z0-9._-]{1,249}$/, 'a legal topic name');
});

t.test('instances on one EventStoreDB share its topic, each data directory keeping its groups', async (t) => {
  const url = 'esdb://user:secret@store.example.org:2113?tls=false';
  const one = kafkaNamesFor({ eventStoreUrl: url, dataDir: '/srv/one' });
  const two = kafkaNamesFor({ eventStoreUrl: url, dataDir: '/srv/two' });
  t.equal(one.topic, two.topic);
  t.not(one.groupPrefix, two.groupPrefix);
  t.not(one.topic, kafkaNamesFor({ dataDir: '/srv/one' }).topic, 'not the embedded log of the same directory');
  t.notMatch(one.topic, /secret|store\.example/, 'the URL is not spelled out on the broker');
});

t.test('servers on separate hosts filling one MongoDB database share its groups', async (t) => {
  const eventStoreUrl = 'postgres://app@db.example.org:5432/collections';
  const mongoUrl = 'mongodb://mongo.example.org:27017/library';
  const a = kafkaNamesFor({ eventStoreUrl, mongoUrl, dataDir: '/srv/host-a' });
  const b = kafkaNamesFor({ eventStoreUrl, mongoUrl, dataDir: '/srv/host-b' });
  t.same(a, b, 'one topic and one set of groups: the log is folded into the database once');
  t.not(
    a.groupPrefix,
    kafkaNamesFor({ eventStoreUrl, dataDir: '/srv/host-a' }).groupPrefix,
    'not the embedded read models',
  );
  t.not(
    a.groupPrefix,
    kafkaNamesFor({ eventStoreUrl, mongoUrl: 'mongodb://mongo.example.org:27017/staging', dataDir: '/srv/host-a' })
      .groupPrefix,
    'another database, other groups',
  );
  t.equal(
    kafkaNamesFor({ mongoUrl, dataDir: '/srv/one' }).topic,
    kafkaNamesFor({ dataDir: '/srv/one' }).topic,
    "the topic is the log's",
  );
});
