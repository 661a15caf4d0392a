import { Type, type Static } from '@sinclair/typebox';
import { checkedOrThrow } from './checked-json.js';

/** What a store built from an event log records of it (infra/log-identity.ts). */
export const LogStampSchema = Type.Object({
  /** The log's identity (EventStore.identity). */
  log: Type.String({ minLength: 1 }),
  /** The log as it was described when the stamp was written (logDescription): for messages only. */
  description: Type.String(),
  stamped_at: Type.String(),
});
export type LogStamp = Static<typeof LogStampSchema>;

/** A log of this process: its identity and, for messages, where it is. */
export interface LogIdentity {
  id: string;
  description: string;
}

/** A stamp read from a store (outside the process): null when absent; checked, never cast. */
export function checkedStamp(value: unknown, where: string): LogStamp | null {
  if (value === null || value === undefined) return null;
  return checkedOrThrow(LogStampSchema, value, `The log stamp of ${where}`);
}
