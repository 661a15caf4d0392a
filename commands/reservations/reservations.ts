import { VersionConflictError, type AppError } from '../../infra/errors.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { uniqueSlug } from '../../infra/text/slug.js';
import { metadataFor, type CommandContext } from '../command-context.js';
import { toDomainEvents } from '../handle-command.js';
import {
  KeyHeldError,
  reservationDecider,
  type ReservationCommand,
  type ReservationEvent,
  type ReservationState,
} from './reservation-decider.js';

/**
 * Unique keys across processes (docs/READ-MODELS.md, "Rules that span records"). A command that
 * writes a unique key first checks the read models (which cover resources written before
 * reservations existed), then reserves the key in its own stream; the reservation settles a race
 * the read models cannot see, since the event store takes exactly one append at a version.
 */
export const reservationStream = (key: string): string => `reservation-${key}`;

/**
 * How long a reservation is trusted when nothing in the read models holds its key: the holder
 * crashed between the reservation and its write, or let go of the key without releasing it.
 * Past it the key may be taken over (at the reservation's version, so by one writer only).
 */
export const ABANDONED_AFTER_MS = 30_000;

/** Every conflict means another writer moved the stream on, so retrying makes progress; this only bounds a pathological run. */
const MAX_ATTEMPTS = 100;

export interface KeyReservation {
  key: string;
  /** The stream of the resource that will hold the key (`site-5`). */
  owner: string;
  /** What a caller that finds the key held gets: the same refusal as a duplicate found in the read models. */
  refuse(): AppError;
  /** Whether a resource other than the owner holds the key in the read models (an abandoned reservation is one whose key is in use nowhere). */
  inUse(): Promise<boolean>;
  /**
   * The owner may hold the key already (an update that keeps its slug): its stream is read first.
   * Otherwise the key is presumed new (see runOnKey), as on a create.
   */
  ownerMayHold?: boolean;
}

function stateOf(last: StoredEvent | null): ReservationState {
  return last
    ? reservationDecider.evolve(reservationDecider.initialState(), toDomainEvents<ReservationEvent>([last])[0])
    : reservationDecider.initialState();
}

/** The holder of `last`'s reservation when it may be taken over by `owner`, else null. */
async function abandonedHolder(
  ctx: CommandContext,
  { last, owner, inUse }: { last: StoredEvent | null; owner: string; inUse: () => Promise<boolean> },
): Promise<string | null> {
  const holder = stateOf(last).holder;
  if (!last || holder === null || holder === owner) return null;
  const age = ctx.clock.now().getTime() - Date.parse(last.metadata.at);
  if (!(age >= ABANDONED_AFTER_MS)) return null;
  return (await inUse()) ? null : holder;
}

/**
 * Decides against the key's last event and appends at its version; a conflict (another writer
 * got there first) is decided again against the event that won. `presumeNew` decides the first
 * attempt as if the stream did not exist, without reading it: most keys reserved are new, and
 * the append at version 0 fails as a conflict when the stream exists after all, which then reads
 * it as any conflict does. Same outcome, one read of the log fewer per new key.
 */
async function runOnKey(
  ctx: CommandContext,
  {
    key,
    command,
    presumeNew = false,
  }: { key: string; command: (last: StoredEvent | null) => Promise<ReservationCommand>; presumeNew?: boolean },
): Promise<void> {
  const stream = reservationStream(key);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const last = attempt === 0 && presumeNew ? null : await ctx.eventStore.readLastEvent(stream);
    const events = reservationDecider.decide(await command(last), stateOf(last));
    if (events.length === 0) return;
    try {
      const metadata = metadataFor(ctx);
      await ctx.eventStore.append(
        stream,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        last ? last.streamVersion : 0,
      );
      return;
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
  throw new VersionConflictError(stream, 'any', -1);
}

/** Reserves the key for its owner, or throws the reservation's refusal when another owner holds it. */
export async function reserveKey(ctx: CommandContext, reservation: KeyReservation): Promise<void> {
  const { key, owner } = reservation;
  try {
    await runOnKey(ctx, {
      key,
      command: async (last) => ({
        type: 'ReserveKey',
        data: { key, owner, abandonedBy: await abandonedHolder(ctx, { last, owner, inUse: reservation.inUse }) },
      }),
      presumeNew: !reservation.ownerMayHold,
    });
  } catch (error) {
    if (error instanceof KeyHeldError) throw reservation.refuse();
    throw error;
  }
}

/** Lets go of the key if `owner` holds it (after a rename or a delete, or when the write it guarded failed). */
export async function releaseKey(ctx: CommandContext, key: string, owner: string): Promise<void> {
  await runOnKey(ctx, { key, command: async () => ({ type: 'ReleaseKey', data: { key, owner } }) });
}

/** Releases without failing the caller: its write is done, and a key left reserved is taken over once abandoned. */
export async function releaseKeyQuietly(ctx: CommandContext, key: string, owner: string): Promise<void> {
  try {
    await releaseKey(ctx, key, owner);
  } catch {
    // Nothing to undo: ABANDONED_AFTER_MS frees the key once its owner no longer uses it.
  }
}

/** Whether an owner other than `owner` holds the key now (an abandoned reservation counts as free). */
async function heldByOther(
  ctx: CommandContext,
  { key, owner, inUse }: { key: string; owner: string; inUse: () => Promise<boolean> },
): Promise<boolean> {
  const last = await ctx.eventStore.readLastEvent(reservationStream(key));
  const holder = stateOf(last).holder;
  if (holder === null || holder === owner) return false;
  return (await abandonedHolder(ctx, { last, owner, inUse })) === null;
}

export interface SlugScope {
  /** The reservation key of a slug in this scope (`blog_post-slug-<slug>`). */
  keyOf(slug: string): string;
  /** Whether another resource has the slug in the read models. */
  taken(slug: string): Promise<boolean>;
}

/** A slug to reserve for `owner` in `scope`; `ownerMayHold`: an update, whose owner may hold it already. */
export interface SlugClaim {
  scope: SlugScope;
  owner: string;
  ownerMayHold?: boolean;
}

/**
 * Reserves the first free slug of `base`, `base-2`, ... (uniqueSlug), a slug reserved by
 * another owner counting as taken. Losing a race for the slug found starts the search again:
 * the winner's reservation now counts as taken.
 */
export async function reserveUniqueSlug(
  ctx: CommandContext,
  { scope, base, owner, ownerMayHold = false }: SlugClaim & { base: string },
): Promise<string> {
  // A create's common case first: the base is free in the read models, so its key is reserved
  // without reading its reservation stream (reserveKey presumes it new). Held by another, the
  // search below counts it as taken.
  if (
    !ownerMayHold &&
    !(await scope.taken(base)) &&
    (await reserveFoundSlug(ctx, { scope, slug: base, owner, ownerMayHold: false }))
  )
    return base;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const slug = await uniqueSlug(base, async (candidate) => {
      const inUse = () => scope.taken(candidate);
      return (await inUse()) || (await heldByOther(ctx, { key: scope.keyOf(candidate), owner, inUse }));
    });
    if (await reserveFoundSlug(ctx, { scope, slug, owner, ownerMayHold })) return slug;
  }
  throw new VersionConflictError(scope.keyOf(base), 'any', -1);
}

/** Reserves a slug found free; false when another owner reserved it meanwhile. */
async function reserveFoundSlug(
  ctx: CommandContext,
  { scope, slug, owner, ownerMayHold }: SlugClaim & { slug: string },
): Promise<boolean> {
  try {
    const key = scope.keyOf(slug);
    await reserveKey(ctx, {
      key,
      owner,
      refuse: () => new KeyHeldError(key, 'another owner'),
      inUse: () => scope.taken(slug),
      ownerMayHold,
    });
    return true;
  } catch (error) {
    if (!(error instanceof KeyHeldError)) throw error;
    return false;
  }
}

/**
 * Runs a write that gives its owner `key` in place of `previous` (a rename, or the first key of a
 * create when `previous` is null): the new key is reserved first, the write runs, then the old
 * key is released. A write that fails lets go of the new key again.
 */
export async function withKey<T>(
  ctx: CommandContext,
  {
    reservation,
    previous,
    write,
  }: { reservation: KeyReservation | null; previous: string | null; write: () => Promise<T> },
): Promise<T> {
  if (reservation === null || reservation.key === previous) return write();
  await reserveKey(ctx, reservation);
  return withReservedKey(ctx, { key: reservation.key, owner: reservation.owner, previous, write });
}

/** A write that gives `owner` the reserved `key` in place of `previous` (null: it held none). */
export interface KeyedWrite<T> {
  key: string;
  owner: string;
  previous: string | null;
  write: () => Promise<T>;
}

/** As withKey, for a key already reserved (reserveUniqueSlug). */
export async function withReservedKey<T>(
  ctx: CommandContext,
  { key, owner, previous, write }: KeyedWrite<T>,
): Promise<T> {
  let result: T;
  try {
    result = await write();
  } catch (error) {
    if (key !== previous) await releaseKeyQuietly(ctx, key, owner);
    throw error;
  }
  if (previous !== null && previous !== key) await releaseKeyQuietly(ctx, previous, owner);
  return result;
}
