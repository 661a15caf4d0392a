import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Each API surface has its own error body (CONTRACT.md section 3 and the seeds). The surface is
 * known from the URL, so the one error handler and the not-found handler can answer in its shape.
 */
export type ErrorSurface = 'native' | 'plain' | 'status-envelope';

export function surfaceFor(url: string): ErrorSurface {
  const path = url.split('?')[0];
  if (path.startsWith('/api/blog/') || path === '/api/blog') return 'plain';
  if (path.startsWith('/api/v1/') || path.startsWith('/chatbot/') || path.startsWith('/directory/')) return 'plain';
  if (path.startsWith('/api/asset-picker/') || path.startsWith('/api/page-versioning/')) return 'status-envelope';
  return 'native';
}

/** Status for a request that failed schema validation on this surface. */
export function validationStatusFor(surface: ErrorSurface, url: string): number {
  // The IIIF Image API: a malformed request is a 400 (its body is the native one).
  if (url.startsWith('/iiif/')) return 400;
  if (surface === 'native') return 422;
  if (url.startsWith('/api/blog/')) return 422;
  return 400;
}

export function errorBody(
  surface: ErrorSurface,
  message: string,
  fields?: Record<string, string[]>,
): Record<string, unknown> {
  switch (surface) {
    case 'native':
      return { errors: fields && Object.keys(fields).length > 0 ? fields : { error: message } };
    case 'plain':
      return { error: message };
    case 'status-envelope':
      return { status: 'error', message };
  }
}

/** The error body of each surface (CONTRACT.md section 3), as the OpenAPI document describes it. */
export const ERROR_BODIES: Record<ErrorSurface, TSchema> = {
  native: Type.Object(
    {
      errors: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: '`{"error": "message"}`, or for a validation error each field with its messages.',
      }),
    },
    { title: 'NativeError' },
  ),
  plain: Type.Object({ error: Type.String() }, { title: 'PlainError' }),
  'status-envelope': Type.Object({ status: Type.Literal('error'), message: Type.String() }, { title: 'StatusError' }),
};
