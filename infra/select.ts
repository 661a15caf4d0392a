import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AppConfig } from '../app/config.js';
import type { DocumentStore } from './document-store/port.js';
import { MemoryDocumentStore } from './document-store/memory.js';
import type { EventBus } from './event-bus/port.js';
import { EmbeddedEventBus } from './event-bus/embedded.js';
import type { EventStore } from './event-store/port.js';
import { SqliteEventStore } from './event-store/sqlite.js';
import type { JobQueue } from './job-queue/port.js';
import { InProcessJobQueue } from './job-queue/in-process.js';

export interface Infrastructure {
  eventStore: EventStore;
  documents: DocumentStore;
  bus: EventBus;
  jobs: JobQueue;
  close(): Promise<void>;
}

export function eventLogFile(config: AppConfig): string {
  return join(config.dataDir, 'events.sqlite');
}

async function createEventStore(config: AppConfig): Promise<EventStore> {
  return new SqliteEventStore(eventLogFile(config));
}

async function createDocumentStore(_config: AppConfig): Promise<DocumentStore> {
  return new MemoryDocumentStore();
}

async function createEventBus(_config: AppConfig, eventStore: EventStore, _logger: Logger): Promise<EventBus> {
  return new EmbeddedEventBus(eventStore);
}

async function createJobQueue(_config: AppConfig): Promise<JobQueue> {
  return new InProcessJobQueue();
}

/** Picks each port's adapter from the environment: the embedded default unless its URL is set. */
export async function createInfrastructure(config: AppConfig, logger: Logger): Promise<Infrastructure> {
  const eventStore = await createEventStore(config);
  const documents = await createDocumentStore(config);
  const bus = await createEventBus(config, eventStore, logger);
  const jobs = await createJobQueue(config);
  return {
    eventStore,
    documents,
    bus,
    jobs,
    async close() {
      await jobs.close();
      await bus.close();
      await documents.close();
      await eventStore.close();
    },
  };
}
