import { loadConfig, type AppConfig } from '../infra/config.js';
import { appModules } from '../app/modules.js';
import type { EventStore } from '../infra/event-store/port.js';
import { createEventStore } from '../infra/select.js';
import { PROJECTIONS_CONTROL_STREAM, retryRequested, skipRequested } from '../projections/control-events.js';
import { Type, type Static } from '@sinclair/typebox';
import { checked } from '../infra/checked-json.js';
import { HealthBody } from '../routes/health/index.js';

const USAGE = `Usage:
  npm run projections                              each projection's position, and the parked ones
  npm run projections -- retry NAME                ask the server to try NAME's failed event again
  npm run projections -- skip NAME POSITION        let NAME pass over the event at POSITION (the one it is parked at)
Option: --server URL (default http://HOST:PORT from the environment) for the running server.`;

/** How long `retry` and `skip` watch the server for the outcome. */
const OUTCOME_WAIT_MS = 15_000;

class Refused extends Error {}

/** The local server, as HOST and PORT describe it (a wildcard address is reached through loopback). */
function defaultServer(config: AppConfig): string {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** What this tool reads of /health: the parts of the route's own schema it shows. */
const ProjectionsHealth = Type.Pick(HealthBody, ['log', 'projections', 'parked']);
type HealthReport = Static<typeof ProjectionsHealth>;

/** The server's report; null when none answers. An answer that is not this application's report is refused. */
async function healthOf(server: string): Promise<HealthReport | null> {
  let body: unknown;
  try {
    const res = await fetch(`${server}/health`, { signal: AbortSignal.timeout(5000) });
    if (res.status !== 200 && res.status !== 503) return null;
    body = await res.json();
  } catch {
    return null;
  }
  const report = checked(ProjectionsHealth, body);
  if (report.ok) return report.value;
  throw new Refused(
    `${server}/health answered something other than this application's health report (${report.problem}).`,
  );
}

function parkedIn(report: HealthReport, name: string): HealthReport['parked'][number] | undefined {
  return report.parked.find((p) => p.name === name);
}

function printReport(report: HealthReport): void {
  const { last_position: last, handled_position: handled, lag } = report.log;
  console.log(`log position ${last ?? 'unknown (the event store did not answer)'}`);
  if (handled !== null)
    console.log(`read models at ${handled}${lag === null ? '' : lag === 0 ? ', caught up' : `, ${lag} events behind`}`);
  const width = Math.max(...report.projections.map((p) => p.name.length), 4);
  for (const p of report.projections) {
    console.log(`${p.name.padEnd(width)}  ${String(p.position).padStart(8)}  ${p.stale ? 'PARKED' : 'ok'}`);
  }
  for (const p of report.parked) {
    console.log(`\n${p.name} is parked at position ${p.position} (${p.event_type}) since ${p.since}: ${p.error}`);
    console.log(`  after a fix: npm run projections -- retry ${p.name}`);
    console.log(`  to pass over this event: npm run projections -- skip ${p.name} ${p.position}`);
  }
}

function knownProjection(name: string | undefined): string {
  const names = appModules.flatMap((m) => m.projections ?? []).map((p) => p.name);
  if (!name) throw new Refused('Name a projection.');
  if (!names.includes(name))
    throw new Refused(`There is no projection named "${name}". Projections: ${names.join(', ')}.`);
  return name;
}

/** The event at the position must exist and be one the projection handles: a typo never skips another event. */
async function checkEventAt(store: EventStore, name: string, positionText: string | undefined): Promise<number> {
  const position = Number(positionText);
  if (!positionText || !Number.isInteger(position) || position < 1)
    throw new Refused(
      'POSITION must be a positive integer: the position /health or the list shows for the parked projection.',
    );
  const [event] = await store.readAll(position - 1, 1);
  if (!event || event.position !== position) throw new Refused(`The log holds no event at position ${position}.`);
  const projection = appModules.flatMap((m) => m.projections ?? []).find((p) => p.name === name);
  if (!projection?.handles.includes(event.type))
    throw new Refused(`The event at position ${position} is a ${event.type}, which ${name} does not handle.`);
  return position;
}

/** Watches the server until the projection is no longer parked at `position`, or parked again after `since`. */
async function outcome(server: string, name: string, before: HealthReport['parked'][number]): Promise<string> {
  const deadline = Date.now() + OUTCOME_WAIT_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const report = await healthOf(server);
    if (!report) continue;
    const parked = parkedIn(report, name);
    if (!parked)
      return `${name} resumed: it is at position ${report.projections.find((p) => p.name === name)?.position ?? '?'}.`;
    if (parked.position !== before.position || parked.since !== before.since) {
      return `${name} is parked again at position ${parked.position} (${parked.event_type}): ${parked.error}`;
    }
  }
  return `The server has not acted on the request within ${OUTCOME_WAIT_MS / 1000} s; it stays recorded in the log.`;
}

async function request(config: AppConfig, server: string, args: string[]): Promise<number> {
  const [command, nameArg, positionArg] = args;
  const name = knownProjection(nameArg);
  const store = await createEventStore(config);
  try {
    const report = await healthOf(server);
    const parked = report ? parkedIn(report, name) : undefined;
    const metadata = { userId: null, at: new Date().toISOString(), requestId: `cli-projections-${process.pid}` };
    if (command === 'skip') {
      const position = await checkEventAt(store, name, positionArg);
      if (report && parked?.position !== position) {
        throw new Refused(
          parked
            ? `${name} is parked at position ${parked.position}, not ${position}.`
            : `${name} is not parked; nothing to skip.`,
        );
      }
      await store.append(PROJECTIONS_CONTROL_STREAM, [skipRequested(name, position, metadata)], 'any');
      console.log(`Recorded: ${name} may pass over the event at position ${position}.`);
    } else {
      if (report && !parked) throw new Refused(`${name} is not parked; nothing to retry.`);
      await store.append(PROJECTIONS_CONTROL_STREAM, [retryRequested(name, metadata)], 'any');
      console.log(`Recorded: ${name} tries its failed event again.`);
    }
    if (!report || !parked) {
      console.log(
        `No server answered at ${server}: the request takes effect when one starts (a start retries parked projections anyway).`,
      );
      return 0;
    }
    const result = await outcome(server, name, parked);
    console.log(result);
    return result.startsWith(`${name} resumed`) ? 0 : 1;
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const args = [...argv];
  const flag = args.indexOf('--server');
  const server = (flag >= 0 ? args.splice(flag, 2)[1] : undefined) ?? defaultServer(config);
  try {
    if (args.length === 0) {
      const report = await healthOf(server);
      if (!report)
        throw new Refused(
          `No server answered at ${server}/health (set HOST and PORT, or --server URL). Positions and parked projections live in the running server.`,
        );
      printReport(report);
      return 0;
    }
    if ((args[0] === 'retry' && args.length === 2) || (args[0] === 'skip' && args.length === 3))
      return await request(config, server, args);
    console.error(USAGE);
    return 2;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    console.error(`Refused: ${error.message}`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`projections failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
