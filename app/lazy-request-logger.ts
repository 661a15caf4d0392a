import type { FastifyBaseLogger } from 'fastify';
import type { FastifyChildLoggerFactory } from 'fastify/types/logger.js';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Whether `logger` writes at `level`; a logger that cannot tell is asked to write. */
function writesAt(logger: FastifyBaseLogger, level: Level): boolean {
  const isLevelEnabled = (logger as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled;
  return isLevelEnabled ? isLevelEnabled.call(logger, level) : true;
}

/**
 * A request's logger that makes its pino child (the one carrying the request id) only when
 * something is written through it. Making a child serialises its bindings, a few microseconds
 * per request, and with request logging off most requests never write a line.
 */
export class LazyRequestLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** Whether the pino child has been made (for tests). */
  get materialised(): boolean {
    return this.made !== null;
  }

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  private write(level: Level, args: unknown[]): void {
    if (writesAt(this.made ?? this.parent, level)) (this.real[level] as (...args: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/**
 * Fastify's child logger factory, with lazy children. A route with its own log level gets its
 * child at once, since that level decides what the child writes.
 */
export const lazyChildLoggerFactory: FastifyChildLoggerFactory = (logger, bindings, options) =>
  options.level === undefined
    ? (new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger)
    : logger.child(bindings, options);
