/** Failed logins counted for one key in its current window. */
export interface FailureCount {
  failures: number;
  /** Seconds until the window ends and the count starts over (at least 1 while failures > 0). */
  retryAfterSeconds: number;
}

/**
 * Failed logins per key (a caller's address and the email tried), in fixed windows: the first
 * failure starts a window, and the count is forgotten when it ends or the login succeeds.
 */
export interface FailedLogins {
  count(key: string): Promise<FailureCount>;
  record(key: string): Promise<void>;
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}
