import { resolve } from 'node:path';

export interface AppConfig {
  host: string;
  port: number;
  baseUrl: string;
  dataDir: string;
  eventStoreUrl?: string;
  kafkaBrokers?: string[];
  mongoUrl?: string;
  redisUrl?: string;
  elasticsearchUrl?: string;
  cohereApiKey?: string;
  chatbotRateLimit: number;
  chatbotRateWindowSeconds: number;
  backupRetention: number;
  maxUploadBytes: number;
  /** Failed logins for one email from one address before further tries are refused (0: no limit). */
  loginMaxFailures: number;
  loginFailureWindowSeconds: number;
  logLevel: string;
}

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got "${value}".`);
  return parsed;
}

function optional(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Reads configuration from the environment (CONTRACT.md section 1); every infrastructure variable is optional. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const host = optional(env.HOST) ?? '127.0.0.1';
  const port = positiveInt(env.PORT, 8080, 'PORT');
  const baseUrl = (optional(env.BASE_URL) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const brokers = optional(env.KAFKA_BROKERS);
  return {
    host,
    port,
    baseUrl,
    dataDir: resolve(optional(env.DATA_DIR) ?? './data'),
    eventStoreUrl: optional(env.EVENTSTORE_URL),
    kafkaBrokers: brokers ? brokers.split(',').map((b) => b.trim()).filter(Boolean) : undefined,
    mongoUrl: optional(env.MONGO_URL),
    redisUrl: optional(env.REDIS_URL),
    elasticsearchUrl: optional(env.ELASTICSEARCH_URL),
    cohereApiKey: optional(env.COHERE_API_KEY),
    chatbotRateLimit: positiveInt(env.CHATBOT_RATE_LIMIT, 10, 'CHATBOT_RATE_LIMIT'),
    chatbotRateWindowSeconds: positiveInt(env.CHATBOT_RATE_WINDOW_SECONDS, 60, 'CHATBOT_RATE_WINDOW_SECONDS'),
    backupRetention: positiveInt(env.BACKUP_RETENTION, 5, 'BACKUP_RETENTION'),
    maxUploadBytes: positiveInt(env.MAX_UPLOAD_BYTES, 50 * 1024 * 1024, 'MAX_UPLOAD_BYTES'),
    loginMaxFailures: positiveInt(env.LOGIN_MAX_FAILURES, 10, 'LOGIN_MAX_FAILURES'),
    loginFailureWindowSeconds: Math.max(1, positiveInt(env.LOGIN_FAILURE_WINDOW_SECONDS, 900, 'LOGIN_FAILURE_WINDOW_SECONDS')),
    logLevel: optional(env.LOG_LEVEL) ?? 'info',
  };
}

/** Embedded defaults in a given data directory: what tests build apps with. */
export function embeddedConfig(dataDir: string, overrides: Partial<AppConfig> = {}): AppConfig {
  return { ...loadConfig({ DATA_DIR: dataDir }), logLevel: 'silent', ...overrides };
}
