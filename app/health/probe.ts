/** How long /health waits for one port before calling it unreachable. */
export const PROBE_TIMEOUT_MS = 1000;

/**
 * Whether a cheap check of a port answers within the timeout. The check is not cancelled when
 * the timer wins (the ports have no cancellation); its late outcome is ignored.
 */
export async function answers(check: () => Promise<unknown>, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      // A check that throws before it returns a promise is a failed check too.
      Promise.resolve()
        .then(check)
        .then(
          () => true,
          () => false,
        ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
