import t, { type Test } from 'tap';
import { Query } from 'mingo';
import type { Filter } from '../../../infra/document-store/port.js';
import {
  itemRoutes,
  itemSetRoutes,
  mediaRoutes,
  sitePageRoutes,
  siteRoutes,
} from '../../../routes/platform/definitions.js';
import { NOTHING_HIDDEN, type HiddenIds } from '../../../routes/platform/hidden-ids.js';
import { ItemFields, ItemSetFields, SiteFields, SitePageFields } from '../../../contracts/platform/fields.js';
import { fieldsOf } from '../../../infra/schema/record-fields.js';

const STAMPS = { _id: 1, id: 1, created_at: '2026-01-01 00:00:00', updated_at: '2026-01-01 00:00:00', owner_id: null };

/** A kind's list definition, as far as this test reads it. */
interface Listed<Doc> {
  path: string;
  isPrivate(doc: Doc, hidden: HiddenIds): boolean;
  publicFilter?: Filter;
}

/** A new record's fields: the required ones given, the others their defaults. */
const site = fieldsOf(SiteFields, { slug: 'main', title: 'Main' });
const itemSet = fieldsOf(ItemSetFields, { title: 'Maps' });
const item = fieldsOf(ItemFields, { title: 'Chart' });
const page = fieldsOf(SitePageFields, { site_id: 1, slug: 'home', title: 'Home' });

function agree<Doc>(t: Test, def: Listed<Doc>, doc: (isPublic: boolean) => Doc): void {
  if (!def.publicFilter) return void t.fail(`${def.path} has no public filter: its list would read every record`);
  for (const isPublic of [true, false]) {
    const record = doc(isPublic);
    t.equal(
      new Query(def.publicFilter).test(record as object),
      !def.isPrivate(record, NOTHING_HIDDEN),
      `${def.path}, is_public ${isPublic}`,
    );
  }
}

t.test("a list's public filter keeps exactly the records isPrivate lets a public caller see", async (t) => {
  agree(t, siteRoutes, (isPublic) => ({ ...STAMPS, ...site, is_public: isPublic }));
  agree(t, itemSetRoutes, (isPublic) => ({ ...STAMPS, ...itemSet, is_public: isPublic }));
  agree(t, itemRoutes, (isPublic) => ({ ...STAMPS, ...item, media_ids: [], is_public: isPublic }));
  agree(t, sitePageRoutes, (isPublic) => ({ ...STAMPS, ...page, is_public: isPublic }));
  t.equal(mediaRoutes.privateByReference, true, "a media's privacy is its item's too: its list filters in the route");
});
