/**
 * One readiness probe of the MongoDB stand-in, for stack/mongo/start.sh: a `ping` through the
 * same driver the adapter uses, so "ready" means the driver can select the server and get an
 * answer, not merely that a port is open. Exits 0 when it answered, 1 otherwise (the reason on
 * stderr, for the script's last attempt). Usage: node --import tsx stack/mongo/ready.ts URL
 */
import { MongoClient } from 'mongodb';

const url = process.argv[2];
if (!url) {
  console.error('usage: ready.ts MONGO_URL');
  process.exit(2);
}

const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
try {
  await client.db('admin').command({ ping: 1 });
  process.exitCode = 0;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await client.close().catch(() => undefined);
}
