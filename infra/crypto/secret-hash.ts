import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;

/**
 * scrypt's cost N (SECRET_HASH_COST): 2^14 unless configured. It is a power of two from 2^10,
 * which tests use to stay fast, to 2^17 (OWASP's figure; 128 MiB of memory for each hash).
 */
export const SECRET_HASH_COST = { default: 2 ** 14, min: 2 ** 10, max: 2 ** 17 } as const;

/** Hashes a password or API credential for storing: how commands reach the configured cost. */
export type SecretHasher = (secret: string) => Promise<string>;

export function isSecretHashCost(cost: number): boolean {
  return (
    Number.isInteger(cost) && cost >= SECRET_HASH_COST.min && cost <= SECRET_HASH_COST.max && (cost & (cost - 1)) === 0
  );
}

function assertSecretHashCost(cost: number): void {
  if (!isSecretHashCost(cost))
    throw new RangeError(
      `scrypt's cost must be a power of two from ${SECRET_HASH_COST.min} to ${SECRET_HASH_COST.max}, got ${cost}.`,
    );
}

/** The memory one hash at `cost` takes while it runs: 128 * N * r bytes (16 MiB at the default cost). */
export function scryptMemoryBytes(cost: number): number {
  return 128 * cost * BLOCK_SIZE;
}

/** scrypt's default memory cap (32 MiB) is below what 2^17 needs; room to spare for its own use. */
function scryptOptions(cost: number): object {
  return { N: cost, r: BLOCK_SIZE, p: PARALLELISM, maxmem: 2 * scryptMemoryBytes(cost) };
}

/** Hashes with scrypt at `cost` (the configured one: config.secretHashCost) and a random salt: `scrypt$N$r$p$salt$hash`. */
export async function hashSecret(secret: string, cost: number): Promise<string> {
  assertSecretHashCost(cost);
  const salt = randomBytes(16);
  const hash = await scryptAsync(secret, salt, KEY_LENGTH, scryptOptions(cost));
  return ['scrypt', cost, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), hash.toString('base64')].join('$');
}

export function scryptHasher(cost: number): SecretHasher {
  assertSecretHashCost(cost);
  return (secret) => hashSecret(secret, cost);
}

/** Checks a secret against a stored hash with the parameters stored in it, so a change of cost leaves earlier hashes valid. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const cost = Number(n);
  // The memory cap follows the stored cost, so a cost outside the range (a damaged record) is refused rather than tried.
  if (!isSecretHashCost(cost) || Number(r) !== BLOCK_SIZE || Number(p) !== PARALLELISM) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64'), expected.length, scryptOptions(cost));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A fast digest, for cache keys and for tokens that are long random strings (not passwords). */
export function sha256(value: string): string {
  // The one-shot form: no Hash object per call, which cost more than the digest (it runs per API request).
  return hash('sha256', value, 'hex');
}
