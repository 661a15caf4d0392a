import { embeddedConfig, type AppConfig } from '../infra/config.js';
import { SECRET_HASH_COST } from '../infra/crypto/secret-hash.js';

/**
 * scrypt's lowest cost, for the passwords and API credentials of test fixtures: they hash 16
 * times faster than at the default, which took about half the CPU of a test file that builds
 * apps with users. test/infra/crypto/secret-hash.test.ts and test/app/config.test.ts check the
 * default cost.
 */
export const TEST_SECRET_HASH_COST = SECRET_HASH_COST.min;

/** Embedded defaults in a test's directory, with the tests' hash cost. */
export function testConfig(dataDir: string, overrides: Partial<AppConfig> = {}): AppConfig {
  return embeddedConfig(dataDir, { secretHashCost: TEST_SECRET_HASH_COST, ...overrides });
}
