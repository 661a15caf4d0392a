/** What the projection runner logs through (pino's Logger fits; tests pass a recorder). */
export interface ProjectionLogger {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}
