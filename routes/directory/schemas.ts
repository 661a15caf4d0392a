import { Type } from '@sinclair/typebox';
import { ACCESS_VALUES } from '../../contracts/directory/values.js';

/** Response and query schemas of the directory API; they also write its OpenAPI reference. */
export const ErrorBody = Type.Object({ error: Type.String() }, { description: 'What went wrong.' });

export const TokenQuery = {
  token: Type.Optional(
    Type.String({ description: 'The directory API token, when not sent as `Authorization: Bearer`.' }),
  ),
};

export const TermRef = Type.Object({ handle: Type.String(), name: Type.String() });

export const DatabaseRecord = Type.Object({
  handle: Type.String(),
  name: Type.String(),
  description: Type.String(),
  subjects: Type.Array(TermRef),
  types: Type.Array(TermRef),
  access: Type.Union(ACCESS_VALUES.map((a) => Type.Literal(a))),
  audience: Type.Array(Type.String()),
  featured: Type.Boolean(),
  links: Type.Object({
    open: Type.String({
      description:
        'Tracked address on this server: 302 to the database (through the proxy when proxied); counts the click.',
    }),
    details: Type.String({ description: "Address of the database's HTML details page on this server." }),
  }),
});

export const ListMeta = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});

export const TermWithCount = Type.Object({
  handle: Type.String(),
  name: Type.String(),
  database_count: Type.Integer(),
});

export const LibraryRecord = Type.Object({
  name: Type.String(),
  plan: Type.String(),
  brand_color: Type.String(),
  database_count: Type.Integer({ description: 'Databases patrons can see.' }),
  lists: Type.Array(TermRef, { description: "The library's curated lists (GET /api/v1/lists/{handle})." }),
  links: Type.Object({
    databases: Type.String(),
    subjects: Type.String(),
    types: Type.String(),
    widget: Type.String(),
  }),
});

export const ListRecord = Type.Object({
  handle: Type.String(),
  name: Type.String(),
  databases: Type.Array(DatabaseRecord),
});

/** The errors every /api/v1/ route may answer with. */
export const directoryErrors = {
  401: { ...ErrorBody, description: 'Missing or invalid token.' },
  403: { ...ErrorBody, description: "Origin not allowed for the token, or the library's plan has no API access." },
  429: { ...ErrorBody, description: '120 requests per minute per token exceeded; see Retry-After.' },
};
