/** A directory fixture shared by the directory tests (CONTRACT.md section 4, `directory` part). */
export const OPEN_TOKEN = 'open-token-0123456789abcdefghijklmnop';
export const SITE_TOKEN = 'site-token-0123456789abcdefghijklmnop';
export const LIBRARY_ORIGIN = 'https://library.example.edu';
export const PROXY_PREFIX = 'https://proxy.example.edu/login?url=';
export const BRAND_COLOR = '#8a1538';

export function directoryFixture(
  overrides: { plan?: string; tokens?: { token: string; allowed_origins: string[] }[] } = {},
) {
  return {
    library: {
      name: 'City Library',
      plan: overrides.plan ?? 'plus',
      brand_color: BRAND_COLOR,
      proxy_prefix: PROXY_PREFIX,
    },
    tokens: overrides.tokens ?? [
      { token: OPEN_TOKEN, allowed_origins: [] },
      { token: SITE_TOKEN, allowed_origins: [LIBRARY_ORIGIN] },
    ],
    subjects: [
      { handle: 'history', name: 'History' },
      { handle: 'literature', name: 'Literature' },
      { handle: 'medicine', name: 'Medicine' },
      { handle: 'mathematics', name: 'Mathematics' },
      { handle: 'art', name: 'Art' },
    ],
    types: [
      { handle: 'journals', name: 'Journals' },
      { handle: 'records', name: 'Records' },
      { handle: 'reference', name: 'Reference' },
      { handle: 'ebooks', name: 'E-books' },
    ],
    databases: [
      {
        handle: 'jstor',
        name: 'JSTOR',
        description: 'Journal archive for the humanities.',
        url: 'https://www.jstor.org/',
        subjects: ['history', 'literature'],
        types: ['journals'],
        access: 'subscription',
        audience: ['undergraduate', 'graduate'],
        featured: true,
        hidden: false,
        proxied: true,
      },
      {
        handle: 'pubmed',
        name: 'PubMed',
        description: 'Biomedical literature citations.',
        url: 'https://pubmed.ncbi.nlm.nih.gov/',
        subjects: ['medicine'],
        types: ['journals'],
        access: 'open',
        audience: ['graduate'],
        featured: false,
        hidden: false,
        proxied: false,
      },
      {
        handle: 'ancestry',
        name: 'Ancestry Library Edition',
        description: 'Census and family history records.',
        url: 'https://ancestrylibrary.example.com/',
        subjects: ['history'],
        types: ['records'],
        access: 'restricted',
        audience: ['public'],
        featured: true,
        hidden: false,
        proxied: false,
      },
      {
        handle: 'britannica',
        name: 'britannica online',
        description: 'General encyclopedia.',
        url: 'https://www.britannica.com/',
        subjects: ['history', 'literature'],
        types: ['reference'],
        access: 'trial',
        audience: ['public', 'undergraduate'],
        featured: false,
        hidden: false,
        proxied: true,
      },
      {
        handle: 'secret',
        name: 'Secret Archive',
        description: 'Not yet public: history journals.',
        url: 'https://secret.example.com/',
        subjects: ['history', 'art'],
        types: ['journals', 'ebooks'],
        access: 'open',
        audience: ['graduate'],
        featured: true,
        hidden: true,
        proxied: false,
      },
      {
        handle: 'zeta',
        name: 'Zeta Maths',
        description: 'Algebra <b>bold</b> & "quotes" for history of mathematics.',
        url: 'https://zeta.example.com/search?a=1&b=2',
        subjects: ['mathematics'],
        types: ['journals'],
        access: 'subscription',
        audience: ['graduate'],
        featured: false,
        hidden: false,
        proxied: true,
      },
    ],
    lists: [{ handle: 'starter', name: 'Start here', databases: ['pubmed', 'secret', 'jstor', 'ancestry'] }],
  };
}

/** Visible databases, name A to Z (case-insensitive). */
export const VISIBLE_ORDER = ['ancestry', 'britannica', 'jstor', 'pubmed', 'zeta'];
