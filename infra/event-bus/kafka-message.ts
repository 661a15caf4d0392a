import { parseChecked, type Checked } from '../checked-json.js';
import { StoredEventSchema, type StoredEvent } from '../event-store/port.js';

/**
 * A message of the events topic, read back: the forwarder writes each event as JSON (kafka.ts),
 * but the topic is outside the process, so it is checked against the stored event's schema
 * rather than cast. Answers the event, or what is wrong with the message.
 */
export function parseEventMessage(value: Buffer | null): Checked<StoredEvent> {
  if (value === null || value.length === 0) return { ok: false, problem: 'The message is empty' };
  return parseChecked(StoredEventSchema, value.toString('utf8'));
}
