import { eventUpcasting } from '../infra/event-store/upcast.js';
import { platformUpcasters } from './platform/upcasters.js';

/**
 * Every module's upcasters (`commands/<module>/upcasters.ts`): the one step that brings a stored
 * event to its type's current shape, taken wherever a stored event is read as its type: by the
 * deciders (toDomainEvents, commands/handle-command.ts) and by the projections (applyStored,
 * projections/runner.ts). docs/DEVELOPING.md, "Events that change shape", says when to add one.
 */
export const EVENT_UPCASTING = eventUpcasting({ platform: platformUpcasters });
