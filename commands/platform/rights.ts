import { ValidationError } from '../../infra/errors.js';

/**
 * An item's `o:rights`: a Creative Commons licence or public-domain tool, or a
 * RightsStatements.org statement, by its URI (CONTRACT.md section 9). The IIIF Presentation
 * schema takes only their `http://` forms, so an `https://` one is stored as `http://`; any other
 * value is refused (422), so every manifest that shows it validates.
 */
const RIGHTS = [
  /^https?:\/\/creativecommons\.org\/licenses\/[a-z-]+\/\d\.\d(\/[a-z]{2})?\/?$/,
  /^https?:\/\/creativecommons\.org\/publicdomain\/(zero|mark)\/1\.0\/?$/,
  /^https?:\/\/rightsstatements\.org\/vocab\/[A-Za-z-]+\/1\.0\/?$/,
];

export function normalisedRights(value: string): string {
  const uri = value.trim();
  if (!RIGHTS.some((pattern) => pattern.test(uri)))
    throw ValidationError.field(
      'o:rights',
      'Use a Creative Commons URI (http://creativecommons.org/licenses/by/4.0/) or a RightsStatements.org one (http://rightsstatements.org/vocab/InC/1.0/).',
    );
  return uri.replace(/^https:/, 'http:');
}
