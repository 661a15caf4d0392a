import t from 'tap';
import type { Static, TObject } from '@sinclair/typebox';
import { SitePageFields } from '../../contracts/platform/fields.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';
import type { VersionSummary as SummaryOfQuery } from '../../queries/page-versioning/versions.js';
import { diffPages } from '../../queries/page-versioning/diff.js';
import {
  DiffResponse,
  PagePayload,
  VersionSummary,
  type PagePayload as PagePayloadType,
} from '../../routes/page-versioning/schemas.js';

/*
 * Replies are typed (issue 49): what page version history answers is built from the site page's
 * fields (contracts/platform/fields.ts) and the version list's rows, and typed by the response
 * schemas its routes answer with (routes/page-versioning/schemas.ts). A field added to a site page
 * and not to the payload's schema, or the other way round, fails `tsc`, which checks test/ too:
 * each @ts-expect-error below is itself an error the day the mistake it marks compiles.
 */

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const exact: [Same<Static<typeof PagePayload>, SitePageFields>, Same<Static<typeof VersionSummary>, SummaryOfQuery>] = [
  true,
  true,
];

/** A payload schema with one field more than a site page has: the replayed page does not produce it. */
type WithTemplate = PagePayloadType & { template: string };
export function payloadWithTemplate(page: SitePageFields): WithTemplate {
  // @ts-expect-error 'template' is declared and not produced.
  return page;
}

/** A version summary built without a key its schema declares. */
export function summaryWithoutEditorName(row: Omit<SummaryOfQuery, 'editor_name'>): Static<typeof VersionSummary> {
  // @ts-expect-error 'editor_name' is declared and not produced.
  return row;
}

const keys = (value: object) => Object.keys(value).sort();
const schemaKeys = (schema: TObject) => keys(schema.properties);

t.test('the payload and the summary are typed by their response schemas (checked by tsc)', async (t) => {
  t.same(exact, [true, true], 'the real check is tsc, which compiles this file');
});

t.test("a page's fields are the payload's keys, and a first version's diff lists each but the blocks", async (t) => {
  const page = fieldsOf(SitePageFields, { site_id: 1, slug: 'home', title: 'Home' });
  t.same(keys(page), schemaKeys(PagePayload));
  const diff = diffPages(null, page);
  t.same(
    diff.fields.map((change) => change.field).sort(),
    keys(page).filter((key) => key !== 'blocks'),
    'every field but the blocks is compared',
  );
  t.same(
    keys(diff),
    keys(DiffResponse.properties.data.properties).filter((key) => key === 'fields' || key === 'blocks'),
  );
});
