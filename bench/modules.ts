/**
 * Which feature modules the server registers right now. Read at run time, so a benchmark whose
 * module is missing (or does not load) is reported as skipped instead of failing the run.
 */
export async function registeredModules(): Promise<{ names: Set<string>; error?: string }> {
  try {
    const { appModules } = await import('../app/modules.js');
    return { names: new Set(appModules.map((m) => m.name)) };
  } catch (error) {
    return { names: new Set(), error: error instanceof Error ? error.message : String(error) };
  }
}

export function missingModules(registered: Set<string>, needed: readonly string[]): string | null {
  const missing = needed.filter((name) => !registered.has(name));
  return missing.length === 0
    ? null
    : `module${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not registered in app/modules.ts`;
}
