import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import t from 'tap';
import { KafkaEventBus } from '../../infra/event-bus/kafka.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { freePort, ROOT } from '../e2e/process.js';

const run = promisify(execFile);

// A broker of its own (the shared one must stay up for other tests): its jars, two starts and a stop.
t.setTimeout(300_000);

/** How soon after the broker answers again the events must flow: kafkajs' 30 s session held them that long. */
const RECOVERY_MS = 20_000;

t.test(
  'Kafka restarted: the events appended meanwhile reach the group soon after the broker is back',
  // KAFKA_BROKERS says the stack can run here (Java, Maven, stack/kafka); this test starts a broker of its own.
  { skip: process.env.KAFKA_BROKERS ? false : 'KAFKA_BROKERS unset' },
  async (t) => {
    const stackDir = mkdtempSync(join(tmpdir(), 'kafka-restart-'));
    t.teardown(() => rmSync(stackDir, { recursive: true, force: true }));
    const env = {
      ...process.env,
      STACK_DIR: stackDir,
      KAFKA_PORT: String(await freePort()),
      KAFKA_CONTROLLER_PORT: String(await freePort()),
    };
    const script = (name: string) => run('bash', [join(ROOT, 'stack', 'kafka', name)], { env, cwd: ROOT });
    const started = await script('start.sh');
    t.teardown(() => script('stop.sh'));
    t.equal(started.stdout, `KAFKA_BROKERS=127.0.0.1:${env.KAFKA_PORT}\n`, 'start.sh prints the one line');

    const store = new SqliteEventStore(join(t.testdir(), 'events.sqlite'));
    t.teardown(() => store.close());
    const append = (type: string) =>
      store.append(
        `s-${randomUUID()}`,
        [{ type, data: {}, metadata: { userId: null, at: '2026-01-02T03:04:05.000Z' } }],
        'any',
      );
    const bus = await KafkaEventBus.start({
      brokers: [`127.0.0.1:${env.KAFKA_PORT}`],
      store,
      logger: pino({ level: 'silent' }),
      topic: `events-${randomUUID()}`,
    });
    t.teardown(() => bus.close());
    const seen: StoredEvent[] = [];
    const subscription = await bus.subscribe('projections', 0, async (events) => void seen.push(...events));
    t.teardown(() => subscription.stop());
    const waitFor = async (count: number, ms: number) => {
      const deadline = Date.now() + ms;
      while (seen.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      return seen.length >= count;
    };

    await append('Before');
    t.ok(await waitFor(1, 60_000), 'delivered while the broker is up');
    await script('stop.sh');
    await append('WhileDown');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    t.equal(seen.length, 1, 'nothing comes while the broker is down');

    const restarted = await script('start.sh');
    t.equal(restarted.stdout, started.stdout, 'the broker answers again at the same address');
    const back = Date.now();
    await append('After');
    const flowing = await waitFor(3, 60_000);
    const took = Date.now() - back;
    t.ok(flowing && took < RECOVERY_MS, `every event delivered ${took} ms after the broker answered again`);
    t.same(
      seen.map((e) => e.type),
      ['Before', 'WhileDown', 'After'],
      'in order, none lost',
    );
  },
);
