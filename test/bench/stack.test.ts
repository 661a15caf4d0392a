import t from 'tap';
import { stackSkipReason } from '../../bench/stack.js';

t.test('the stack benchmark runs only with every production engine named, and says which is missing', async (t) => {
  t.equal(
    stackSkipReason({
      KAFKA_BROKERS: '127.0.0.1:9092',
      MONGO_URL: 'mongodb://127.0.0.1:27017/x',
      ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
    }),
    null,
  );
  t.match(
    stackSkipReason({ KAFKA_BROKERS: '127.0.0.1:9092' }),
    /\(MONGO_URL, ELASTICSEARCH_URL unset\).*npm run stack:up/,
  );
  t.match(stackSkipReason({}), /KAFKA_BROKERS, MONGO_URL, ELASTICSEARCH_URL unset/);
});
