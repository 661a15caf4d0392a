import { resolve } from 'node:path';
import { normalizeOrigin } from './net/origin.js';
import { isSecretHashCost, SECRET_HASH_COST } from './crypto/secret-hash.js';
import { parseCronSchedule, type CronSchedule } from './schedule/cron.js';
import { compileTrustedProxies } from './net/trusted-proxies.js';
import { postgresLocation } from './postgres-url.js';

export interface CohereConfig {
  apiKey: string;
  /** A Cohere-compatible endpoint in place of Cohere's own (a proxy, a private deployment); undefined: Cohere's. */
  baseUrl?: string;
}

export interface AppConfig {
  host: string;
  port: number;
  baseUrl: string;
  dataDir: string;
  /** EVENTSTORE_URL: postgres:// (with `?schema=name`, infra/postgres-url.ts) or esdb://; undefined, DATA_DIR/events.sqlite. */
  eventStoreUrl?: string;
  kafkaBrokers?: string[];
  mongoUrl?: string;
  redisUrl?: string;
  elasticsearchUrl?: string;
  /**
   * FILES_URL: where stored files (uploads, assets, media derivatives) live: a PostgreSQL
   * database (postgres:// or postgresql://, `?schema=name` for a schema other than `public`:
   * infra/postgres-url.ts); undefined, DATA_DIR/files.
   */
  filesUrl?: string;
  /**
   * QUESTION_LOG_URL: where the chatbot's question log lives: a PostgreSQL database (postgres://
   * or postgresql://) every app server shares; undefined, DATA_DIR/chatbot-questions.sqlite.
   */
  questionLogUrl?: string;
  /**
   * ELASTICSEARCH_INDEX: the chatbot's index in Elasticsearch. Deployments sharing one cluster
   * each need their own, or each one's chatbot finds (and its reindex clears) the other's chunks.
   */
  elasticsearchIndex: string;
  /** COHERE_API_KEY (and COHERE_BASE_URL): Cohere's embeddings and chat; undefined, the embedded ones. */
  cohere?: CohereConfig;
  chatbotRateLimit: number;
  chatbotRateWindowSeconds: number;
  /** Origins whose pages may call the chatbot from a browser (CORS); empty: any origin. */
  chatbotAllowedOrigins: string[];
  /**
   * CHATBOT_SENTENCE_MODEL: whether the embedded embedder runs the sentence model (meaning) beside
   * the word features; off, it embeds by words alone (no model thread, no model memory).
   */
  chatbotSentenceModel: boolean;
  /** CHATBOT_QUESTION_RETENTION_DAYS: how long patrons' questions are kept (0: none is recorded). */
  chatbotQuestionRetentionDays: number;
  /**
   * EVENT_LOG_COMMITS: where the embedded event log commits, 'inline' (on the event loop, with
   * its checkpoints on a thread) or 'thread' (each group handed to a commit thread). See
   * SqliteEventStoreOptions.commits.
   */
  eventLogCommits: 'inline' | 'thread';
  backupRetention: number;
  /** BACKUP_SCHEDULE and BACKUP_SCHEDULE_TZ: when the job queue makes a backup by itself; null: never. */
  backupSchedule: CronSchedule | null;
  maxUploadBytes: number;
  /**
   * COLLECTION_NAME: who publishes the collection (a manifest's `provider`, OAI-PMH's
   * `repositoryName`); null: the directory library's name, else "Collections".
   */
  collectionName: string | null;
  /** COLLECTION_ATTRIBUTION: the statement every manifest carries (`requiredStatement`); null: none. */
  collectionAttribution: string | null;
  /**
   * OAI_REPOSITORY_IDENTIFIER: the middle of OAI-PMH identifiers (`oai:{it}:{item id}`); null:
   * BASE_URL's host name when it is a domain name with a dot, else `localhost.localdomain`
   * (oaiRepositoryIdentifier below).
   */
  oaiRepositoryIdentifier: string | null;
  /** OAI_ADMIN_EMAIL: Identify's adminEmail; null: the first global administrator's email. */
  oaiAdminEmail: string | null;
  /** Failed logins for one email from one address before further tries are refused (0: no limit). */
  loginMaxFailures: number;
  loginFailureWindowSeconds: number;
  /** SECRET_HASH_COST: scrypt's cost N for passwords and API credentials hashed from now on (infra/crypto/secret-hash.ts). */
  secretHashCost: number;
  /** TRUST_PROXY: addresses or CIDRs of proxies whose forwarding headers are believed; empty: the chatbot seed's rule. */
  trustProxy: string[];
  logLevel: string;
}

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a non-negative integer, got "${value}".`);
  return parsed;
}

/** A comma-separated list of origins (`https://site.example`), each normalised; a malformed one stops start-up. */
function origins(value: string | undefined, name: string): string[] {
  const out: string[] = [];
  for (const entry of (value ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const origin = normalizeOrigin(entry);
    if (!origin) throw new Error(`${name} must list origins such as https://library.example.edu, got "${entry}".`);
    if (!out.includes(origin)) out.push(origin);
  }
  return out;
}

function onOff(value: string | undefined, fallback: boolean, name: string): boolean {
  const text = value?.trim().toLowerCase();
  if (!text) return fallback;
  if (text === 'on') return true;
  if (text === 'off') return false;
  throw new Error(`${name} must be on or off, got "${value}".`);
}

/** One of `choices`, the first when unset. */
function oneOf<T extends string>(value: string | undefined, choices: readonly [T, ...T[]], name: string): T {
  const text = value?.trim().toLowerCase();
  if (!text) return choices[0];
  const choice = choices.find((c) => c === text);
  if (choice === undefined) throw new Error(`${name} must be one of ${choices.join(', ')}, got "${value}".`);
  return choice;
}

/** COHERE_API_KEY with COHERE_BASE_URL, an http(s) URL; a base URL without a key stops start-up rather than go unused. */
function cohere(env: NodeJS.ProcessEnv): CohereConfig | undefined {
  const apiKey = optional(env.COHERE_API_KEY);
  const baseUrl = optional(env.COHERE_BASE_URL);
  if (baseUrl !== undefined) {
    if (!apiKey) throw new Error('COHERE_BASE_URL is set without COHERE_API_KEY: set both, or neither.');
    if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
      throw new Error(`COHERE_BASE_URL must be an http or https URL, got "${baseUrl}".`);
  }
  return apiKey ? { apiKey, baseUrl } : undefined;
}

function optional(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A postgres:// or postgresql:// URL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * FILES_URL, QUESTION_LOG_URL: a postgres:// or postgresql:// URL, its `?schema=` checked; anything
 * else stops the start (its value is not repeated: it may hold a password).
 */
function postgresUrl(value: string | undefined, name: string): string | undefined {
  const url = optional(value);
  if (url !== undefined && !isPostgresUrl(url))
    throw new Error(`${name} must be a PostgreSQL URL (postgres://... or postgresql://...).`);
  if (url !== undefined) postgresLocation(url, name);
  return url;
}

/** EVENTSTORE_URL: a PostgreSQL URL's `?schema=` is checked now, so a typo stops the start. */
function eventStoreUrl(value: string | undefined): string | undefined {
  const url = optional(value);
  if (url !== undefined && isPostgresUrl(url)) postgresLocation(url, 'EVENTSTORE_URL');
  return url;
}

/** Reads configuration from the environment (CONTRACT.md section 1); every infrastructure variable is optional. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const host = optional(env.HOST) ?? '127.0.0.1';
  const port = positiveInt(env.PORT, 8080, 'PORT');
  const baseUrl = (optional(env.BASE_URL) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  const brokers = optional(env.KAFKA_BROKERS);
  return {
    host,
    port,
    baseUrl,
    dataDir: resolve(optional(env.DATA_DIR) ?? './data'),
    eventStoreUrl: eventStoreUrl(env.EVENTSTORE_URL),
    kafkaBrokers: brokers
      ? brokers
          .split(',')
          .map((b) => b.trim())
          .filter(Boolean)
      : undefined,
    mongoUrl: optional(env.MONGO_URL),
    redisUrl: optional(env.REDIS_URL),
    elasticsearchUrl: optional(env.ELASTICSEARCH_URL),
    filesUrl: postgresUrl(env.FILES_URL, 'FILES_URL'),
    questionLogUrl: postgresUrl(env.QUESTION_LOG_URL, 'QUESTION_LOG_URL'),
    elasticsearchIndex: elasticsearchIndexName(env.ELASTICSEARCH_INDEX),
    cohere: cohere(env),
    chatbotRateLimit: positiveInt(env.CHATBOT_RATE_LIMIT, 10, 'CHATBOT_RATE_LIMIT'),
    chatbotRateWindowSeconds: positiveInt(env.CHATBOT_RATE_WINDOW_SECONDS, 60, 'CHATBOT_RATE_WINDOW_SECONDS'),
    chatbotAllowedOrigins: origins(env.CHATBOT_ALLOWED_ORIGINS, 'CHATBOT_ALLOWED_ORIGINS'),
    chatbotSentenceModel: onOff(env.CHATBOT_SENTENCE_MODEL, true, 'CHATBOT_SENTENCE_MODEL'),
    chatbotQuestionRetentionDays: positiveInt(
      env.CHATBOT_QUESTION_RETENTION_DAYS,
      90,
      'CHATBOT_QUESTION_RETENTION_DAYS',
    ),
    eventLogCommits: oneOf(env.EVENT_LOG_COMMITS, ['inline', 'thread'] as const, 'EVENT_LOG_COMMITS'),
    backupRetention: positiveInt(env.BACKUP_RETENTION, 5, 'BACKUP_RETENTION'),
    backupSchedule: backupSchedule(env),
    maxUploadBytes: positiveInt(env.MAX_UPLOAD_BYTES, 50 * 1024 * 1024, 'MAX_UPLOAD_BYTES'),
    collectionName: optional(env.COLLECTION_NAME) ?? null,
    collectionAttribution: optional(env.COLLECTION_ATTRIBUTION) ?? null,
    oaiRepositoryIdentifier: domainName(env.OAI_REPOSITORY_IDENTIFIER, 'OAI_REPOSITORY_IDENTIFIER'),
    oaiAdminEmail: optional(env.OAI_ADMIN_EMAIL) ?? null,
    loginMaxFailures: positiveInt(env.LOGIN_MAX_FAILURES, 10, 'LOGIN_MAX_FAILURES'),
    loginFailureWindowSeconds: Math.max(
      1,
      positiveInt(env.LOGIN_FAILURE_WINDOW_SECONDS, 900, 'LOGIN_FAILURE_WINDOW_SECONDS'),
    ),
    secretHashCost: secretHashCost(env.SECRET_HASH_COST),
    trustProxy: trustProxyList(env.TRUST_PROXY),
    logLevel: optional(env.LOG_LEVEL) ?? 'info',
  };
}

const DOMAIN_NAME = /^[a-zA-Z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+$/;

/** A domain name with a dot (collections.example.org), or null when unset. */
function domainName(value: string | undefined, name: string): string | null {
  const given = optional(value);
  if (given === undefined) return null;
  if (!DOMAIN_NAME.test(given))
    throw new Error(`${name} must be a domain name such as collections.example.org, not "${given}".`);
  return given;
}

/** OAI-PMH's repository identifier: OAI_REPOSITORY_IDENTIFIER, else BASE_URL's host when it is a domain name with a dot. */
export function oaiRepositoryIdentifier(config: Pick<AppConfig, 'oaiRepositoryIdentifier' | 'baseUrl'>): string {
  if (config.oaiRepositoryIdentifier) return config.oaiRepositoryIdentifier;
  const host = new URL(config.baseUrl).hostname;
  return DOMAIN_NAME.test(host) ? host : 'localhost.localdomain';
}

/** Elasticsearch's rules for an index name, checked now so a typo stops the start rather than the first write. */
function elasticsearchIndexName(value: string | undefined): string {
  const name = optional(value) ?? 'chatbot-chunks';
  if (!/^[a-z0-9][a-z0-9_.-]*$/.test(name) || name.length > 255) {
    throw new Error(
      `ELASTICSEARCH_INDEX must be lowercase letters, digits, '-', '_' or '.', not starting with one of those signs, got "${name}".`,
    );
  }
  return name;
}

/** A bad expression, a schedule more often than every 15 minutes or an unknown zone stops the start. */
function backupSchedule(env: NodeJS.ProcessEnv): CronSchedule | null {
  const expression = optional(env.BACKUP_SCHEDULE);
  if (!expression) return null;
  return parseCronSchedule(expression, optional(env.BACKUP_SCHEDULE_TZ) ?? 'UTC', {
    expression: 'BACKUP_SCHEDULE',
    timezone: 'BACKUP_SCHEDULE_TZ',
  });
}

function secretHashCost(value: string | undefined): number {
  const cost = positiveInt(value, SECRET_HASH_COST.default, 'SECRET_HASH_COST');
  if (!isSecretHashCost(cost)) {
    throw new Error(
      `SECRET_HASH_COST must be a power of two from ${SECRET_HASH_COST.min} to ${SECRET_HASH_COST.max}, got "${value}".`,
    );
  }
  return cost;
}

/** Comma-separated; each entry checked now, so a typo stops the start rather than trusting nobody or everybody. */
function trustProxyList(value: string | undefined): string[] {
  const entries = (optional(value) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  compileTrustedProxies(entries);
  return entries;
}

/** Embedded defaults in a given data directory: what tests build apps with. */
export function embeddedConfig(dataDir: string, overrides: Partial<AppConfig> = {}): AppConfig {
  return { ...loadConfig({ DATA_DIR: dataDir }), logLevel: 'silent', ...overrides };
}
