/**
 * Readiness check for stack/kafka/start.sh: waits until the broker answers Kafka's own protocol
 * through the client the app uses (kafkajs), not merely until its port accepts connections.
 *
 * Usage: node --import tsx stack/kafka/ready.ts BROKERS TIMEOUT_SECONDS [PID]
 * Exits 0 once the cluster answers with a controller and a broker and a group coordinator, 1 at the deadline or as soon
 * as PID (the broker's JVM) has died: waiting on a dead process would only waste the timeout.
 */
import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { isAlive } from '../../infra/process-alive.js';

const [brokersArg, timeoutArg, pidArg] = process.argv.slice(2);
const brokers = (brokersArg ?? '').split(',').filter(Boolean);
const timeoutMs = Number(timeoutArg) * 1000;
const pid = pidArg ? Number(pidArg) : null;
if (brokers.length === 0 || !(timeoutMs > 0)) {
  process.stderr.write('usage: ready.ts BROKERS TIMEOUT_SECONDS [PID]\n');
  process.exit(2);
}

/**
 * Whether the broker still runs. It is start.sh's child, not ours: a dead JVM stays a zombie
 * (state Z, still answering signal 0) until that shell reaps it.
 */
function running(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** One attempt: a metadata request and a cluster description, each bounded by kafkajs' timeouts. */
async function answers(): Promise<string | null> {
  const kafka = new Kafka({
    clientId: 'stack-ready',
    brokers,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0 || cluster.controller === null) return 'no controller or broker yet';
    // A new broker answers metadata before it can coordinate groups (it first creates and loads
    // __consumer_offsets): the app's first consumer would fail on it, so that is waited for too.
    await admin.describeGroups(['collections-stack-ready']);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

const deadline = Date.now() + timeoutMs;
let last = 'no attempt';
for (;;) {
  if (pid !== null && !running(pid)) {
    process.stderr.write(`the broker process ${pid} has exited\n`);
    process.exit(1);
  }
  const problem = await answers();
  if (problem === null) process.exit(0);
  last = problem;
  if (Date.now() >= deadline) break;
  await new Promise((resolve) => setTimeout(resolve, 500));
}
process.stderr.write(`last answer: ${last}\n`);
process.exit(1);
