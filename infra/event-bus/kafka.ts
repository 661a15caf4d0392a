import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type LogEntry, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { DependencyUnavailableError } from '../errors.js';
import type { AllEventsHandler, EventStore, StoredEvent, Subscription } from '../event-store/port.js';
import { parseEventMessage } from './kafka-message.js';
import type { EventBus, SubscribeOptions } from './port.js';

const DEPENDENCY = 'Kafka';
/** Brokers refuse record batches over ~1 MB by default; stay well below it per send. */
const MAX_SEND_BYTES = 512 * 1024;
const READBACK_TIMEOUT_MS = 30_000;
/**
 * How long a fetch waits on the broker for new messages. Stopping a consumer waits for its fetch
 * in flight, so kafkajs' default (5 s) held every stop, a server's shutdown and each start that
 * reads the topic back for that long; an idle fetch every half second costs the broker nothing.
 */
const FETCH_WAIT_MS = 500;
/**
 * The longest pause between two attempts at a broker that does not answer. kafkajs doubles its
 * pause up to 30 s, so after an outage the forwarder and the projections' consumer went on
 * waiting up to that long with the broker back (writes answered 503 meanwhile); as for Redis
 * (infra/job-queue/bullmq.ts), 2 s at most.
 */
const MAX_RETRY_MS = 2_000;
/**
 * How long the broker keeps a silent member in its group. After a broker restart the consumer
 * rejoins as a new member, and the join waits until the old one's session runs out: kafkajs'
 * 30 s default held every projection that long (and writes answered 503) with the broker back.
 * The broker's floor is 6 s (group.min.session.timeout.ms); the handler's batches keep beating.
 */
const SESSION_TIMEOUT_MS = 10_000;
const HEARTBEAT_MS = 3_000;
/** How long close() lets the forwarder finish the batch it is sending. */
const FORWARDER_STOP_MS = 5_000;

export interface KafkaEventBusOptions {
  brokers: string[];
  store: EventStore;
  logger: Logger;
  /** Topic the forwarder publishes to (kafka-names.ts names a deployment's); tests pass a fresh one. */
  topic?: string;
  /** Put before each subscriber group's name, so deployments sharing a broker keep their own offsets. */
  groupPrefix?: string;
  clientId?: string;
  connectionTimeoutMs?: number;
  /** Retries of each broker request; kept low at start-up so an absent broker fails fast. */
  retries?: number;
}

/** Broker-side failures (no connection, no leader, timeouts) as opposed to bugs in the caller. */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // kafkajs' error classes are not reachable as named ESM exports, so they are told apart by name.
  if (
    [
      'KafkaJSConnectionError',
      'KafkaJSNumberOfRetriesExceeded',
      'KafkaJSBrokerNotFound',
      'KafkaJSRequestTimeoutError',
      'KafkaJSConnectionClosedError',
      'KafkaJSTimeout',
    ].includes(error.name)
  ) {
    return true;
  }
  return (error as { retriable?: unknown }).retriable === true;
}

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnavailable(error)) throw new DependencyUnavailableError(DEPENDENCY);
    throw error;
  }
}

/**
 * A message of the topic that is not an event of the log (parseEventMessage): the topic was
 * written by something else, or damaged. Nothing after it is folded: the topic is refilled from
 * the log, the source of truth, once deleted.
 */
function notAnEvent(topic: string, at: { partition: number; offset: string }, problem: string): Error {
  return new Error(
    `Kafka topic ${topic} holds a message that is not an event of the log at partition ${at.partition}, offset ${at.offset} (${problem}). ` +
      'Stop the servers, delete the topic (it is refilled from the log) and start again.',
  );
}

/** Splits a batch so that no single send grows past what a broker accepts. */
function chunkBySize(events: StoredEvent[]): { key: string; value: string }[][] {
  const chunks: { key: string; value: string }[][] = [];
  let current: { key: string; value: string }[] = [];
  let bytes = 0;
  for (const event of events) {
    const value = JSON.stringify(event);
    const size = Buffer.byteLength(value) + Buffer.byteLength(event.streamId);
    if (current.length > 0 && bytes + size > MAX_SEND_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push({ key: event.streamId, value });
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * kafkajs' lines in the app's log. While `quiet()` (the start), its errors and warnings are
 * debug lines: each failed attempt logs an error with a stack trace, and the start's failure
 * is said once by its caller, naming the variable and the address (app/runtime.ts).
 */
function kafkaLogger(logger: Logger, quiet: () => boolean) {
  return () =>
    ({ level, namespace, log }: LogEntry) => {
      const { message, ...details } = log;
      const target = { namespace, ...details };
      if (quiet() && level <= logLevel.WARN) logger.debug(target, message);
      else if (level === logLevel.ERROR) logger.error(target, message);
      else if (level === logLevel.WARN) logger.warn(target, message);
      else if (level === logLevel.INFO) logger.debug(target, message);
    };
}

/**
 * The production event bus. A forwarder follows the event store from the last position already
 * in the topic and publishes every event keyed by its stream; projection groups consume the topic
 * and commit their offset (with the event position as commit metadata) after the handler succeeds.
 *
 * The topic has one partition: projections checkpoint by global position, so they need the whole
 * log in global order, not only each stream in order. So among the servers of a deployment, one
 * member of a group consumes at a time; the others take over at a rebalance (one stops or dies),
 * from the group's committed offset, told through SubscribeOptions.assigned.
 */
export class KafkaEventBus implements EventBus {
  /** A group's partition goes to one member: the servers of a deployment share its events. */
  readonly sharedGroups = true;
  private readonly kafka: Kafka;
  private readonly topic: string;
  private readonly admin: Admin;
  private readonly producer: Producer;
  private readonly consumers = new Set<Consumer>();
  private forwarder: Subscription | null = null;
  /** Until start() has connected and read the topic back. */
  private starting = true;

  private constructor(private readonly options: KafkaEventBusOptions) {
    this.topic = options.topic ?? 'events';
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'collections-backend',
      brokers: options.brokers,
      connectionTimeout: options.connectionTimeoutMs ?? 3000,
      retry: { retries: options.retries ?? 5, maxRetryTime: MAX_RETRY_MS },
      logLevel: logLevel.INFO,
      logCreator: kafkaLogger(options.logger, () => this.starting),
    });
    this.admin = this.kafka.admin();
    this.producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // Idempotence holds only with unbounded retries; a broker outage just holds the forwarder.
      retry: { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: MAX_RETRY_MS },
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  /** Connects, makes sure the topic exists, and starts forwarding from where the topic ends. */
  static async start(options: KafkaEventBusOptions): Promise<KafkaEventBus> {
    const bus = new KafkaEventBus(options);
    try {
      await guard(async () => {
        await bus.admin.connect();
        await bus.ensureTopic();
        await bus.producer.connect();
      });
      const last = await guard(() => bus.lastForwarded());
      if (last) await bus.assertSameLog(last);
      bus.forwarder = options.store.subscribeToAll(last?.position ?? 0, (events) => bus.forward(events));
      bus.starting = false;
      return bus;
    } catch (error) {
      await bus.close().catch(() => undefined);
      throw error;
    }
  }

  private async ensureTopic(): Promise<void> {
    await this.admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic: this.topic,
          numPartitions: 1,
          // The topic is the log replayed by new groups and rebuilds: it must never expire.
          configEntries: [
            { name: 'retention.ms', value: '-1' },
            { name: 'retention.bytes', value: '-1' },
          ],
        },
      ],
    });
    const partitions = await this.admin.fetchTopicOffsets(this.topic);
    if (partitions.length > 1) {
      this.options.logger.warn(
        { topic: this.topic, partitions: partitions.length },
        'Event topic has several partitions: events are in order per stream only.',
      );
    }
  }

  /** A cheap metadata request: answers while the brokers do (/health bounds the wait). */
  async ping(): Promise<void> {
    await guard(() => this.admin.fetchTopicOffsets(this.topic));
  }

  /**
   * The topic outlives the log it was filled from when the log is replaced (a data directory wiped
   * or restored, a store recreated) while the broker keeps its topics. Forwarding would then
   * resume after the old log's last position, dropping the new log's events up to there, and the
   * groups would fold the old log's events instead: so the start is refused, saying what to do.
   */
  private async assertSameLog(last: StoredEvent): Promise<void> {
    const [mine] = await this.options.store.readAll(last.position - 1, 1);
    const same =
      mine?.position === last.position &&
      mine.streamId === last.streamId &&
      mine.streamVersion === last.streamVersion &&
      mine.type === last.type;
    if (same) return;
    throw new Error(
      `Kafka topic ${this.topic} holds another event log than this one: its last event, at position ${last.position}, ` +
        `${mine ? 'differs from this log’s' : 'is past this log’s end'}. Delete the topic (it is refilled from the log) and start again.`,
    );
  }

  /**
   * The newest event already published: the last message of each partition, read back with a
   * throw-away consumer. Publishing is in log order, so nothing before it is missing.
   */
  private async lastForwarded(): Promise<StoredEvent | null> {
    const offsets = await this.admin.fetchTopicOffsets(this.topic);
    const pending = new Map<number, bigint>();
    for (const { partition, high, low } of offsets) {
      if (BigInt(high) > BigInt(low)) pending.set(partition, BigInt(high) - 1n);
    }
    if (pending.size === 0) return null;
    const groupId = `${this.topic}.readback.${randomUUID()}`;
    const consumer = this.kafka.consumer({ groupId, maxWaitTimeInMs: FETCH_WAIT_MS });
    let newest: StoredEvent | null = null;
    // Held in an object: the callback sets it, which the compiler's flow analysis of a `let` would not see.
    const refused: { error: Error | null } = { error: null };
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.topic], fromBeginning: false });
      let resolveDone: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (resolveDone = resolve));
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          const target = pending.get(partition);
          if (target === undefined || BigInt(message.offset) < target) return;
          const parsed = parseEventMessage(message.value);
          if (!parsed.ok) refused.error = notAnEvent(this.topic, { partition, offset: message.offset }, parsed.problem);
          else if (parsed.value.position > (newest?.position ?? 0)) newest = parsed.value;
          pending.delete(partition);
          if (pending.size === 0) resolveDone();
        },
      });
      for (const [partition, offset] of pending)
        consumer.seek({ topic: this.topic, partition, offset: offset.toString() });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new DependencyUnavailableError(DEPENDENCY, 'Kafka did not return the last forwarded event in time.'),
            ),
          READBACK_TIMEOUT_MS,
        );
      });
      await Promise.race([done, timeout]).finally(() => clearTimeout(timer));
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await this.admin.deleteGroups([groupId]).catch(() => undefined);
    }
    // Forwarding from the start would publish the whole log again after a message of unknown origin.
    if (refused.error) throw refused.error;
    return newest;
  }

  private async forward(events: StoredEvent[]): Promise<void> {
    try {
      for (const messages of chunkBySize(events)) {
        await this.producer.send({ topic: this.topic, acks: -1, messages });
      }
    } catch (error) {
      // The store subscription retries the batch; the log says why it is stuck.
      this.options.logger.error(
        { err: error, from: events[0]?.position },
        'Forwarding events to Kafka failed; retrying.',
      );
      throw error;
    }
  }

  async subscribe(
    group: string,
    after: number,
    handler: AllEventsHandler,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    const groupId = `${this.options.groupPrefix ?? ''}${group}`;
    await guard(() => this.rewindIfAhead(groupId, after));
    const consumer = this.kafka.consumer({
      groupId,
      maxWaitTimeInMs: FETCH_WAIT_MS,
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_MS,
      retry: { retries: 5, maxRetryTime: MAX_RETRY_MS, restartOnFailure: async () => true },
    });
    this.consumers.add(consumer);
    // Joins of the group so far, and the last one the subscriber was told of (options.assigned).
    let joins = 0;
    let told = 0;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      joins++;
    });
    const delivered = new Map<number, number>();
    const logger = this.options.logger;
    const topic = this.topic;
    try {
      await guard(async () => {
        await consumer.connect();
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch, heartbeat }) => {
            if (told !== joins && options.assigned) {
              const join = joins;
              await options.assigned();
              told = join;
            }
            // Duplicates from a re-forwarded batch come after newer events: the floor drops them.
            let floor = Math.max(after, delivered.get(batch.partition) ?? 0);
            const events: StoredEvent[] = [];
            // The messages before one that is not an event (all of them when none is): only they are committed.
            let passed = 0;
            let refused: Error | null = null;
            for (const message of batch.messages) {
              const parsed = parseEventMessage(message.value);
              if (!parsed.ok) {
                refused = notAnEvent(topic, { partition: batch.partition, offset: message.offset }, parsed.problem);
                break;
              }
              passed++;
              if (parsed.value.position <= floor) continue;
              events.push(parsed.value);
              floor = parsed.value.position;
            }
            if (events.length > 0) {
              // kafkajs beats only between batches: a fold longer than the session would cost
              // the group its member, and the batch would come again, as long as before.
              const beating = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
              try {
                await handler(events);
              } finally {
                clearInterval(beating);
              }
            }
            delivered.set(batch.partition, floor);
            const last = batch.messages[passed - 1];
            if (last) {
              await consumer.commitOffsets([
                {
                  topic,
                  partition: batch.partition,
                  offset: (BigInt(last.offset) + 1n).toString(),
                  metadata: String(floor),
                },
              ]);
            }
            if (refused) {
              // The group stays at the message, as at a batch whose handler fails: tried again, never passed over.
              logger.error({ topic, partition: batch.partition }, refused.message);
              throw refused;
            }
            await heartbeat();
          },
        });
      });
    } catch (error) {
      this.consumers.delete(consumer);
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  /**
   * A group's committed offset may be past `after` (read models kept in memory start from 0, a
   * rebuild replays everything): the offset commits carry the position, and when it is ahead the
   * group starts again from the beginning; positions up to `after` are skipped while consuming.
   */
  private async rewindIfAhead(group: string, after: number): Promise<void> {
    const [committed] = await this.admin.fetchOffsets({ groupId: group, topics: [this.topic] });
    const ahead = (committed?.partitions ?? []).some((p) => {
      if (Number(p.offset) < 0) return false;
      const position = p.metadata ? Number(p.metadata) : Number.NaN;
      return !(position <= after);
    });
    if (!ahead) return;
    try {
      await this.admin.resetOffsets({ groupId: group, topic: this.topic, earliest: true });
    } catch (error) {
      // Only an empty group can be reset: another instance is consuming, so it keeps its offsets.
      this.options.logger.warn(
        { err: error, group },
        'Could not rewind the consumer group; continuing from its committed offset.',
      );
    }
  }

  async close(): Promise<void> {
    if (this.forwarder) {
      let timer: NodeJS.Timeout | undefined;
      const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, FORWARDER_STOP_MS)));
      await Promise.race([this.forwarder.stop(), giveUp]).finally(() => clearTimeout(timer));
      this.forwarder = null;
    }
    await Promise.all([...this.consumers].map((consumer) => consumer.disconnect().catch(() => undefined)));
    this.consumers.clear();
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}
