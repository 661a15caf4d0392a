import { escapeHtml } from '../../infra/text/html.js';
import type { DatabaseView } from '../../queries/directory/databases.js';

export const ACCESS_LABELS: Record<string, string> = {
  open: 'Open access',
  subscription: 'Library subscription',
  trial: 'Trial access',
  restricted: 'Restricted access',
};

function page(title: string, brandColor: string, body: string): string {
  const color = escapeHtml(brandColor);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1f2328}
h1{color:${color};margin-bottom:.25rem}
.library{color:#57606a;margin-top:0}
dt{font-weight:600;margin-top:.75rem}
dd{margin-left:0}
.open{display:inline-block;margin-top:1.5rem;padding:.6rem 1.2rem;background:${color};color:#fff;border-radius:4px;text-decoration:none;font-weight:600}
.open:focus{outline:3px solid #1f2328;outline-offset:2px}
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function termList(terms: { name: string }[]): string {
  return terms.length ? terms.map((t) => escapeHtml(t.name)).join(', ') : 'None';
}

/** The database's details page: every value escaped; the open link goes through the tracked redirect. */
export function renderDetailsPage(
  db: DatabaseView,
  library: { name: string; brand_color: string },
  openHref: string,
): string {
  const description = db.description
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => `<p>${escapeHtml(p.trim())}</p>`)
    .join('\n');
  return page(
    `${db.name}${library.name ? ` - ${library.name}` : ''}`,
    library.brand_color,
    `<main>
<h1>${escapeHtml(db.name)}</h1>
${library.name ? `<p class="library">${escapeHtml(library.name)}</p>` : ''}
<section class="description">${description}</section>
<dl>
<dt>Subjects</dt><dd class="subjects">${termList(db.subjects)}</dd>
<dt>Types</dt><dd class="types">${termList(db.types)}</dd>
<dt>Access</dt><dd class="access">${escapeHtml(ACCESS_LABELS[db.access] ?? db.access)}</dd>
${db.audience.length ? `<dt>Audience</dt><dd class="audience">${db.audience.map(escapeHtml).join(', ')}</dd>` : ''}
</dl>
<a class="open" href="${escapeHtml(openHref)}">Open ${escapeHtml(db.name)}</a>
</main>`,
  );
}

export function renderNotFoundPage(brandColor: string): string {
  return page(
    'Database not found',
    brandColor,
    '<main><h1>Database not found</h1><p>This database is not in the directory.</p></main>',
  );
}
