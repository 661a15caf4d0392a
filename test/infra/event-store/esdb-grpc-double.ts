import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import codePb from '@eventstore/db-client/generated/code_pb.js';
import featuresGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import featuresPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js';

/**
 * A test double of an EventStoreDB node AT ITS gRPC BOUNDARY: a real gRPC server, in this process,
 * that the unmodified `@eventstore/db-client` connects to with `esdb://127.0.0.1:<port>?tls=false`.
 * It serves the client's own generated service definitions (the Streams and ServerFeatures
 * services of the protocol) from an in-memory transaction log, with the server's semantics as its
 * sources (EventStore/EventStore, src/EventStore.Core/Services/Transport/Grpc) define them:
 *
 * - a log of records at byte offsets; each event of an append is its own record, so an event's
 *   $all position is (commit, prepare) = (its offset, its offset); an append answers the commit
 *   position of its last event and the prepare position of its first (the transaction's);
 * - expected revisions no_stream / any / stream_exists / exact, refused with the
 *   WrongExpectedVersion status (BatchAppend) or message (Append) carrying the current revision;
 *   a retried append of the same event ids at the same place is idempotent;
 * - reads of a stream forwards and backwards, StreamNotFound for a missing stream; reads of $all
 *   forwards (from a position, inclusive) and backwards (before a position), counting the
 *   server's own events, which $all carries like any other;
 * - catch-up subscriptions to $all, exclusive of their start position, with the event type and
 *   stream name filters (regex or prefixes), checkpoints, CaughtUp, then live events;
 * - the node's own streams and events: `$epoch-information` at start, `$metadata` of `$$$stats-…`
 *   and `$statsCollected` in `$stats-…` on a timer (30 s on a server; shorter here, so they
 *   interleave with the tests' events), `$$$scavenges` metadata.
 *
 * Not modelled (UNIMPLEMENTED or absent): deletes and tombstones, stream subscriptions,
 * persistent subscriptions, projections and links, ACLs and users, clusters (gossip, leader
 * redirects), TLS, scavenging, and the server's backpressure (FellBehind).
 */

const { StreamsService } = streamsGrpc;
const { ServerFeaturesService } = featuresGrpc;
const { ReadReq, ReadResp, AppendResp, BatchAppendResp } = streamsPb;
const { StreamIdentifier, UUID, Empty, AllStreamPosition, WrongExpectedVersion, MaximumAppendSizeExceeded, Timeout } =
  sharedPb;
type ReadReqT = InstanceType<typeof ReadReq>;
type ReadRespT = InstanceType<typeof ReadResp>;
type FilterOptionsT = InstanceType<typeof ReadReq.Options.FilterOptions>;
type AppendReqT = InstanceType<typeof streamsPb.AppendReq>;
type AppendRespT = InstanceType<typeof AppendResp>;
type BatchAppendReqT = InstanceType<typeof streamsPb.BatchAppendReq>;
type BatchAppendRespT = InstanceType<typeof BatchAppendResp>;
type StatusT = InstanceType<typeof statusPb.Status>;

/** The server's default maximum append size (--max-append-size). */
const MAX_APPEND_SIZE = 1024 * 1024;
/** The server reads the log in pages of this many records; filtered subscriptions count their checkpoint window in it. */
const READ_BATCH_SIZE = 32;
/** .NET ticks (100 ns) in a millisecond: `created` is sent as ticks since the Unix epoch. */
const TICKS_PER_MS = 10_000n;
/** The size of a chunk's header: the first record starts after it. */
const CHUNK_HEADER_SIZE = 128n;
/** A prepare record's fixed part (lengths, flags, positions, ids, timestamp) around its variable fields. */
const PREPARE_RECORD_OVERHEAD = 90;

/** The expected revision of an append, as the server's ExpectedVersion constants encode it. */
type Expected =
  { kind: 'any' } | { kind: 'no_stream' } | { kind: 'stream_exists' } | { kind: 'revision'; revision: bigint };

interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
}

interface LogRecord extends ProposedEvent {
  streamId: string;
  revision: bigint;
  /** Byte offset of the record in the log: its commit and prepare position. */
  position: bigint;
  /** The position of the first record of the append that wrote it. */
  transactionPosition: bigint;
  createdTicks: bigint;
}

type AppendOutcome =
  | { ok: true; currentRevision: bigint; commit: bigint; prepare: bigint }
  | { ok: false; reason: 'wrong-expected-version'; current: bigint | null; expected: Expected }
  | { ok: false; reason: 'too-large'; maxAppendSize: number };

export interface EsdbDoubleOptions {
  /** How often the node writes its `$statsCollected` event (a server's default is 30 s). 0: never. */
  statsIntervalMs?: number;
}

export interface EsdbDouble {
  port: number;
  url: string;
  /** Every record of the log, system ones included, oldest first (for assertions). */
  records(): readonly LogRecord[];
  close(): Promise<void>;
}

function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

function streamNameOf(identifier: InstanceType<typeof StreamIdentifier> | undefined): string {
  return identifier ? Buffer.from(identifier.getStreamName_asU8()).toString('utf8') : '';
}

function identifierOf(streamId: string): InstanceType<typeof StreamIdentifier> {
  return new StreamIdentifier().setStreamName(utf8(streamId));
}

function uuidText(uuid: InstanceType<typeof UUID> | undefined): string {
  if (!uuid) return randomUUID();
  if (uuid.hasStructured()) {
    const structured = uuid.getStructured();
    const bytes = Buffer.alloc(16);
    bytes.writeBigInt64BE(BigInt(structured?.getMostSignificantBits() ?? '0'), 0);
    bytes.writeBigInt64BE(BigInt(structured?.getLeastSignificantBits() ?? '0'), 8);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return uuid.getString();
}

function compiledFilter(options: FilterOptionsT | undefined): ((record: LogRecord) => boolean) | null {
  if (!options) return null;
  const onType = options.hasEventType();
  const expression = onType ? options.getEventType() : options.getStreamIdentifier();
  if (!expression) return null;
  const subject = (record: LogRecord): string => (onType ? record.type : record.streamId);
  const regex = expression.getRegex();
  if (regex) {
    const pattern = new RegExp(regex);
    return (record) => pattern.test(subject(record));
  }
  const prefixes = expression.getPrefixList();
  return (record) => prefixes.some((prefix) => subject(record).startsWith(prefix));
}

function status(
  code: (typeof codePb.Code)[keyof typeof codePb.Code],
  message: string,
  typeName: string,
  detail: Uint8Array,
): StatusT {
  const details = new anyPb.Any();
  details.pack(detail, typeName);
  return new statusPb.Status().setCode(code).setMessage(message).setDetails(details);
}

function wrongExpectedVersionDetail(
  current: bigint | null,
  expected: Expected,
): InstanceType<typeof WrongExpectedVersion> {
  const detail = new WrongExpectedVersion();
  if (current === null) detail.setCurrentNoStream(new emptyPb.Empty());
  else detail.setCurrentStreamRevision(current.toString());
  switch (expected.kind) {
    case 'any':
      detail.setExpectedAny(new emptyPb.Empty());
      break;
    case 'no_stream':
      detail.setExpectedNoStream(new emptyPb.Empty());
      break;
    case 'stream_exists':
      detail.setExpectedStreamExists(new emptyPb.Empty());
      break;
    case 'revision':
      detail.setExpectedStreamPosition(expected.revision.toString());
      break;
  }
  return detail;
}

/** Ends a server-streaming call with an error status, as the server's RpcExceptions do. */
function fail(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>, code: grpc.status, details: string): void {
  call.emit('error', serviceError(code, details));
}

function serviceError(code: grpc.status, details: string): Partial<grpc.StatusObject> {
  return { code, details, metadata: new grpc.Metadata() };
}

class InMemoryLog {
  private readonly log: LogRecord[] = [];
  private readonly streams = new Map<string, LogRecord[]>();
  private readonly listeners = new Set<() => void>();
  private next = CHUNK_HEADER_SIZE;

  get all(): readonly LogRecord[] {
    return this.log;
  }

  /** The position after the last record: where the next one goes, and where a backwards read from the end starts. */
  get end(): bigint {
    return this.next;
  }

  stream(streamId: string): readonly LogRecord[] | undefined {
    return this.streams.get(streamId);
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  append(streamId: string, expected: Expected, events: ProposedEvent[]): AppendOutcome {
    const existing = this.streams.get(streamId) ?? [];
    const current = existing.length === 0 ? null : BigInt(existing.length - 1);
    const size = events.reduce((sum, event) => sum + this.recordSize(streamId, event), 0);
    if (size > MAX_APPEND_SIZE) return { ok: false, reason: 'too-large', maxAppendSize: MAX_APPEND_SIZE };

    // Idempotence: the same event ids already written right after the expected revision succeed again.
    const from = expected.kind === 'no_stream' ? 0 : expected.kind === 'revision' ? Number(expected.revision) + 1 : -1;
    if (from >= 0 && events.length > 0 && existing.length >= from + events.length) {
      const written = existing.slice(from, from + events.length);
      if (written.every((record, i) => record.id === events[i].id)) {
        const last = written[written.length - 1];
        return {
          ok: true,
          currentRevision: last.revision,
          commit: last.position,
          prepare: written[0].transactionPosition,
        };
      }
    }

    const matches =
      expected.kind === 'any' ||
      (expected.kind === 'no_stream' && current === null) ||
      (expected.kind === 'stream_exists' && current !== null) ||
      (expected.kind === 'revision' && current === expected.revision);
    if (!matches) return { ok: false, reason: 'wrong-expected-version', current, expected };
    if (events.length === 0) {
      return { ok: true, currentRevision: current ?? -1n, commit: this.next, prepare: this.next };
    }

    const transactionPosition = this.next;
    const createdTicks = BigInt(Date.now()) * TICKS_PER_MS;
    let revision = current ?? -1n;
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    let last: LogRecord | undefined;
    for (const event of events) {
      revision += 1n;
      last = { ...event, streamId, revision, position: this.next, transactionPosition, createdTicks };
      this.next += BigInt(this.recordSize(streamId, event));
      this.log.push(last);
      stream.push(last);
    }
    for (const listener of [...this.listeners]) listener();
    return { ok: true, currentRevision: revision, commit: (last as LogRecord).position, prepare: transactionPosition };
  }

  /** Index of the first record at or after the position (a record's position is its pre-position). */
  indexAtOrAfter(position: bigint): number {
    let low = 0;
    let high = this.log.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.log[middle].position < position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Whether a position is one a reader may start from: a record's, or the end. */
  isValidPosition(commit: bigint, prepare: bigint): boolean {
    if (commit !== prepare) return false;
    if (commit === this.next || commit === 0n) return true;
    const at = this.indexAtOrAfter(commit);
    return at < this.log.length && this.log[at].position === commit;
  }

  private recordSize(streamId: string, event: ProposedEvent): number {
    return (
      PREPARE_RECORD_OVERHEAD +
      Buffer.byteLength(streamId) +
      Buffer.byteLength(event.type) +
      event.data.length +
      event.metadata.length
    );
  }
}

function recordedEvent(
  record: LogRecord,
  uuidAsString: boolean,
): InstanceType<typeof ReadResp.ReadEvent.RecordedEvent> {
  const id = new UUID();
  if (uuidAsString) id.setString(record.id);
  else {
    const bytes = Buffer.from(record.id.replaceAll('-', ''), 'hex');
    id.setStructured(
      new UUID.Structured()
        .setMostSignificantBits(bytes.readBigInt64BE(0).toString())
        .setLeastSignificantBits(bytes.readBigInt64BE(8).toString()),
    );
  }
  const event = new ReadResp.ReadEvent.RecordedEvent()
    .setId(id)
    .setStreamIdentifier(identifierOf(record.streamId))
    .setStreamRevision(record.revision.toString())
    .setCommitPosition(record.position.toString())
    .setPreparePosition(record.position.toString())
    .setData(record.data)
    .setCustomMetadata(record.metadata);
  const metadata = event.getMetadataMap();
  metadata.set('type', record.type);
  metadata.set('content-type', record.contentType);
  metadata.set('created', record.createdTicks.toString());
  return event;
}

function readResp(record: LogRecord, uuidAsString: boolean, fromAll: boolean): ReadRespT {
  const readEvent = new ReadResp.ReadEvent().setEvent(recordedEvent(record, uuidAsString));
  if (fromAll) readEvent.setCommitPosition(record.position.toString());
  else readEvent.setNoPosition(new Empty());
  return new ReadResp().setEvent(readEvent);
}

function confirmation(): ReadRespT {
  return new ReadResp().setConfirmation(new ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID()));
}

/** Writes a message, waiting for the transport when its buffer is full. */
async function write(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>, message: ReadRespT): Promise<void> {
  if (!call.write(message)) await new Promise<void>((resolve) => call.once('drain', () => resolve()));
}

export async function startEsdbDouble(options: EsdbDoubleOptions = {}): Promise<EsdbDouble> {
  const log = new InMemoryLog();
  const endpoint = '127.0.0.1:2113';
  const systemEvent = (type: string, body: unknown): ProposedEvent => ({
    id: randomUUID(),
    type,
    contentType: 'application/json',
    data: utf8(JSON.stringify(body)),
    metadata: new Uint8Array(),
  });
  log.append('$epoch-information', { kind: 'any' }, [
    systemEvent('$epoch-information', {
      epochNumber: 0,
      epochPosition: 0,
      epochId: randomUUID(),
      leaderInstanceId: randomUUID(),
    }),
  ]);
  log.append('$$$scavenges', { kind: 'any' }, [systemEvent('$metadata', { $maxAge: 2_592_000 })]);
  log.append(`$$$stats-${endpoint}`, { kind: 'any' }, [systemEvent('$metadata', { $maxAge: 86_400 })]);
  const writeStats = (): void => {
    log.append(`$stats-${endpoint}`, { kind: 'any' }, [
      systemEvent('$statsCollected', { 'proc-startTime': new Date().toISOString(), 'es-queue-count': 0 }),
    ]);
  };
  writeStats();
  const statsTimer = options.statsIntervalMs ? setInterval(writeStats, options.statsIntervalMs) : null;
  statsTimer?.unref();

  function proposed(message: {
    getId(): InstanceType<typeof UUID> | undefined;
    getMetadataMap(): { get(key: string): string | undefined };
    getData_asU8(): Uint8Array;
    getCustomMetadata_asU8(): Uint8Array;
  }): ProposedEvent {
    const metadata = message.getMetadataMap();
    const type = metadata.get('type');
    const contentType = metadata.get('content-type');
    if (!type || !contentType) throw new Error('A proposed message needs the "type" and "content-type" metadata.');
    return {
      id: uuidText(message.getId()),
      type,
      contentType,
      data: message.getData_asU8(),
      metadata: message.getCustomMetadata_asU8(),
    };
  }

  const streams: grpc.UntypedServiceImplementation = {
    read: (call: grpc.ServerWritableStream<ReadReqT, ReadRespT>) => {
      void serveRead(call).catch((error: unknown) => {
        fail(call, grpc.status.INTERNAL, error instanceof Error ? error.message : String(error));
      });
    },

    append: (call: grpc.ServerReadableStream<AppendReqT, AppendRespT>, callback: grpc.sendUnaryData<AppendRespT>) => {
      let streamId: string | null = null;
      let expected: Expected = { kind: 'any' };
      const events: ProposedEvent[] = [];
      let failed = false;
      call.on('data', (request: AppendReqT) => {
        if (failed) return;
        try {
          if (request.hasOptions()) {
            const requestOptions = request.getOptions() as InstanceType<typeof streamsPb.AppendReq.Options>;
            streamId = streamNameOf(requestOptions.getStreamIdentifier());
            expected = requestOptions.hasNoStream()
              ? { kind: 'no_stream' }
              : requestOptions.hasStreamExists()
                ? { kind: 'stream_exists' }
                : requestOptions.hasRevision()
                  ? { kind: 'revision', revision: BigInt(requestOptions.getRevision()) }
                  : { kind: 'any' };
          } else if (request.hasProposedMessage()) {
            events.push(
              proposed(request.getProposedMessage() as InstanceType<typeof streamsPb.AppendReq.ProposedMessage>),
            );
          }
        } catch (error) {
          failed = true;
          callback(serviceError(grpc.status.INVALID_ARGUMENT, (error as Error).message));
        }
      });
      call.on('end', () => {
        if (failed) return;
        if (streamId === null) {
          callback(serviceError(grpc.status.INVALID_ARGUMENT, 'The first message of an append carries its options.'));
          return;
        }
        const outcome = log.append(streamId, expected, events);
        const response = new AppendResp();
        if (outcome.ok) {
          const success = new AppendResp.Success()
            .setCurrentRevision(outcome.currentRevision.toString())
            .setPosition(
              new AppendResp.Position()
                .setCommitPosition(outcome.commit.toString())
                .setPreparePosition(outcome.prepare.toString()),
            );
          callback(null, response.setSuccess(success));
        } else if (outcome.reason === 'wrong-expected-version') {
          const wrong = new AppendResp.WrongExpectedVersion();
          if (outcome.current === null) wrong.setCurrentNoStream(new Empty());
          else wrong.setCurrentRevision(outcome.current.toString());
          const wanted = outcome.expected;
          if (wanted.kind === 'any') wrong.setExpectedAny(new Empty());
          else if (wanted.kind === 'no_stream') wrong.setExpectedNoStream(new Empty());
          else if (wanted.kind === 'stream_exists') wrong.setExpectedStreamExists(new Empty());
          else wrong.setExpectedRevision(wanted.revision.toString());
          callback(null, response.setWrongExpectedVersion(wrong));
        } else {
          const metadata = new grpc.Metadata();
          metadata.set('exception', 'maximum-append-size-exceeded');
          metadata.set('maximum-append-size', String(outcome.maxAppendSize));
          callback({ code: grpc.status.INVALID_ARGUMENT, details: 'Maximum Append Size Exceeded.', metadata });
        }
      });
    },

    batchAppend: (call: grpc.ServerDuplexStream<BatchAppendReqT, BatchAppendRespT>) => {
      interface Pending {
        streamId: string;
        expected: Expected;
        deadline: number;
        events: ProposedEvent[];
      }
      const pending = new Map<string, Pending>();
      call.on('data', (request: BatchAppendReqT) => {
        const correlation = request.getCorrelationId();
        const key = uuidText(correlation);
        const answer = (response: BatchAppendRespT, streamId: string): void => {
          response.setCorrelationId(correlation).setStreamIdentifier(identifierOf(streamId));
          call.write(response);
        };
        const requestOptions = request.getOptions();
        if (requestOptions) {
          const streamId = streamNameOf(requestOptions.getStreamIdentifier());
          const timestamp = requestOptions.getDeadline();
          const deadline = timestamp ? timestamp.toDate().getTime() : Number.POSITIVE_INFINITY;
          if (deadline <= Date.now()) {
            answer(
              new BatchAppendResp().setError(
                status(
                  codePb.Code.DEADLINE_EXCEEDED,
                  'Timeout',
                  'event_store.client.Timeout',
                  new Timeout().serializeBinary(),
                ),
              ),
              streamId,
            );
            return;
          }
          const expected: Expected = requestOptions.hasNoStream()
            ? { kind: 'no_stream' }
            : requestOptions.hasStreamExists()
              ? { kind: 'stream_exists' }
              : requestOptions.hasStreamPosition()
                ? { kind: 'revision', revision: BigInt(requestOptions.getStreamPosition()) }
                : { kind: 'any' };
          if (!pending.has(key)) pending.set(key, { streamId, expected, deadline, events: [] });
        }
        const write = pending.get(key);
        if (!write) return;
        write.events.push(...request.getProposedMessagesList().map(proposed));
        if (!request.getIsFinal()) return;
        pending.delete(key);
        const outcome = log.append(write.streamId, write.expected, write.events);
        const response = new BatchAppendResp();
        if (outcome.ok) {
          response.setSuccess(
            new BatchAppendResp.Success()
              .setCurrentRevision(outcome.currentRevision.toString())
              .setPosition(
                new AllStreamPosition()
                  .setCommitPosition(outcome.commit.toString())
                  .setPreparePosition(outcome.prepare.toString()),
              ),
          );
        } else if (outcome.reason === 'wrong-expected-version') {
          response.setError(
            status(
              codePb.Code.ALREADY_EXISTS,
              'WrongExpectedVersion',
              'event_store.client.WrongExpectedVersion',
              wrongExpectedVersionDetail(outcome.current, outcome.expected).serializeBinary(),
            ),
          );
        } else {
          response.setError(
            status(
              codePb.Code.INVALID_ARGUMENT,
              'MaximumAppendSizeExceeded',
              'event_store.client.MaximumAppendSizeExceeded',
              new MaximumAppendSizeExceeded().setMaxappendsize(outcome.maxAppendSize).serializeBinary(),
            ),
          );
        }
        answer(response, write.streamId);
      });
      call.on('end', () => call.end());
    },

    delete: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      callback(serviceError(grpc.status.UNIMPLEMENTED, 'Deleting streams is not modelled by this double.'));
    },
    tombstone: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      callback(serviceError(grpc.status.UNIMPLEMENTED, 'Tombstoning streams is not modelled by this double.'));
    },
  };

  async function serveRead(call: grpc.ServerWritableStream<ReadReqT, ReadRespT>): Promise<void> {
    const readOptions = call.request.getOptions();
    if (!readOptions) {
      fail(call, grpc.status.INVALID_ARGUMENT, "'Options' is a required argument.");
      return;
    }
    const uuidAsString = readOptions.getUuidOption()?.hasString() ?? false;
    const backwards = readOptions.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
    const filter = readOptions.hasFilter() ? compiledFilter(readOptions.getFilter()) : null;

    if (readOptions.hasStream()) {
      const streamOptions = readOptions.getStream() as InstanceType<typeof ReadReq.Options.StreamOptions>;
      const streamId = streamNameOf(streamOptions.getStreamIdentifier());
      if (readOptions.hasSubscription() || filter) {
        fail(call, grpc.status.UNIMPLEMENTED, 'Stream subscriptions and filtered stream reads are not modelled here.');
        return;
      }
      const records = log.stream(streamId);
      if (!records) {
        await write(
          call,
          new ReadResp().setStreamNotFound(new ReadResp.StreamNotFound().setStreamIdentifier(identifierOf(streamId))),
        );
        call.end();
        return;
      }
      const count = BigInt(readOptions.getCount());
      const last = BigInt(records.length - 1);
      const from = streamOptions.hasRevision()
        ? BigInt(streamOptions.getRevision())
        : streamOptions.hasEnd()
          ? backwards
            ? last
            : last + 1n
          : backwards
            ? -1n
            : 0n;
      let sent = 0n;
      if (backwards) {
        for (let revision = from > last ? last : from; revision >= 0n && sent < count; revision--, sent++) {
          await write(call, readResp(records[Number(revision)], uuidAsString, false));
        }
      } else {
        for (let revision = from; revision <= last && sent < count; revision++, sent++) {
          await write(call, readResp(records[Number(revision)], uuidAsString, false));
        }
      }
      call.end();
      return;
    }

    const allOptions = readOptions.getAll() as InstanceType<typeof ReadReq.Options.AllOptions>;
    let start: bigint | 'start' | 'end';
    if (allOptions.hasPosition()) {
      const position = allOptions.getPosition() as InstanceType<typeof ReadReq.Options.Position>;
      const commit = BigInt(position.getCommitPosition());
      const prepare = BigInt(position.getPreparePosition());
      if (!log.isValidPosition(commit, prepare)) {
        // What a server answers for a position that is not a record's (RpcExceptions.InvalidPositionException);
        // a subscription is confirmed first, then fails.
        if (readOptions.hasSubscription()) await write(call, confirmation());
        fail(call, grpc.status.INVALID_ARGUMENT, 'Trying to read from an invalid position.');
        return;
      }
      start = commit;
    } else start = allOptions.hasEnd() ? 'end' : 'start';

    if (readOptions.hasSubscription()) {
      await subscribeToAll(call, start, filter, readOptions.getFilter(), uuidAsString);
      return;
    }

    const count = BigInt(readOptions.getCount());
    let sent = 0n;
    const all = log.all;
    if (backwards) {
      // Backwards, a position is a post-position: the read returns the records before it.
      let index = start === 'end' ? all.length - 1 : start === 'start' ? -1 : log.indexAtOrAfter(start) - 1;
      for (; index >= 0 && sent < count; index--) {
        if (filter && !filter(all[index])) continue;
        await write(call, readResp(all[index], uuidAsString, true));
        sent++;
      }
    } else {
      // Forwards, a position is a pre-position: the read starts with the record at it.
      let index = start === 'end' ? all.length : start === 'start' ? 0 : log.indexAtOrAfter(start);
      for (; index < all.length && sent < count; index++) {
        if (filter && !filter(all[index])) continue;
        await write(call, readResp(all[index], uuidAsString, true));
        sent++;
      }
    }
    call.end();
  }

  async function subscribeToAll(
    call: grpc.ServerWritableStream<ReadReqT, ReadRespT>,
    start: bigint | 'start' | 'end',
    filter: ((record: LogRecord) => boolean) | null,
    filterOptions: FilterOptionsT | undefined,
    uuidAsString: boolean,
  ): Promise<void> {
    const all = log.all;
    // A subscription starts AFTER its position: the record at it is not delivered.
    let next = start === 'start' ? 0 : start === 'end' ? all.length : log.indexAtOrAfter(start + 1n);
    const window = filterOptions?.hasMax() ? filterOptions.getMax() : READ_BATCH_SIZE;
    const checkpointEvery = filter
      ? Math.max(1, window * Math.max(1, filterOptions?.getCheckpointintervalmultiplier() ?? 1))
      : 0;
    let considered = 0;
    let caughtUp = false;
    let cancelled = false;
    let pumping = false;
    let again = false;

    const pump = async (): Promise<void> => {
      if (pumping) {
        again = true;
        return;
      }
      pumping = true;
      try {
        do {
          again = false;
          while (!cancelled && next < all.length) {
            const record = all[next++];
            considered++;
            if (!filter || filter(record)) await write(call, readResp(record, uuidAsString, true));
            if (checkpointEvery && considered % checkpointEvery === 0) {
              await write(
                call,
                new ReadResp().setCheckpoint(
                  new ReadResp.Checkpoint()
                    .setCommitPosition(record.position.toString())
                    .setPreparePosition(record.position.toString()),
                ),
              );
            }
          }
          if (!caughtUp && !cancelled) {
            caughtUp = true;
            await write(call, new ReadResp().setCaughtUp(new ReadResp.CaughtUp()));
          }
        } while (again && !cancelled);
      } finally {
        pumping = false;
      }
    };

    const stopListening = log.onAppend(
      () => void pump().catch((error: unknown) => fail(call, grpc.status.INTERNAL, String(error))),
    );
    const stop = (): void => {
      cancelled = true;
      stopListening();
    };
    call.on('cancelled', stop);
    call.on('close', stop);
    call.on('error', stop);
    await write(call, confirmation());
    await pump();
  }

  const features: grpc.UntypedServiceImplementation = {
    getSupportedMethods: (
      _call: grpc.ServerUnaryCall<unknown, unknown>,
      callback: grpc.sendUnaryData<InstanceType<typeof featuresPb.SupportedMethods>>,
    ) => {
      const method = (service: string, name: string, features: string[] = []) =>
        new featuresPb.SupportedMethod().setServiceName(service).setMethodName(name).setFeaturesList(features);
      const service = 'event_store.client.streams.streams';
      callback(
        null,
        new featuresPb.SupportedMethods()
          .setEventStoreServerVersion('23.10.0')
          .setMethodsList([
            method(service, 'read', ['position', 'events']),
            method(service, 'append'),
            method(service, 'batchappend', ['deadline_duration']),
            method('event_store.client.server_features.serverfeatures', 'getsupportedmethods'),
          ]),
      );
    },
  };

  const server = new grpc.Server();
  server.addService(StreamsService, streams);
  server.addService(ServerFeaturesService, features);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );

  return {
    port,
    url: `esdb://127.0.0.1:${port}?tls=false`,
    records: () => log.all,
    /** Stops the node at once, as a crash would: open calls end with UNAVAILABLE or a reset. */
    close: async () => {
      if (statsTimer) clearInterval(statsTimer);
      server.forceShutdown();
    },
  };
}
