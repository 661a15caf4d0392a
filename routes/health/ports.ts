/**
 * The ports /health reports on, in the order of its body's `ports`: the body's schema
 * (routes/health/index.ts) and the report that fills it (app/health/report.ts) read this list.
 */
export const PORTS = [
  'event_store',
  'event_bus',
  'document_store',
  'vector_index',
  'job_queue',
  'embedder',
  'session_store',
  'file_storage',
] as const;
export type PortName = (typeof PORTS)[number];
