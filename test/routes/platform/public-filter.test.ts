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

const STAMPS = { _id: 1, id: 1, created_at: '2026-01-01 00:00:00', updated_at: '2026-01-01 00:00:00', owner_id: null };

/** A kind's list definition, as far as this test reads it. */
interface Listed<Fields, Doc> {
  path: string;
  defaults(): Fields;
  isPrivate(doc: Doc, hidden: HiddenIds): boolean;
  publicFilter?: Filter;
}

function agree<Fields extends object, Doc>(
  t: Test,
  def: Listed<Fields, Doc>,
  doc: (fields: Fields, isPublic: boolean) => Doc,
): void {
  if (!def.publicFilter) return void t.fail(`${def.path} has no public filter: its list would read every record`);
  for (const isPublic of [true, false]) {
    const record = doc(def.defaults(), isPublic);
    t.equal(
      new Query(def.publicFilter).test(record as object),
      !def.isPrivate(record, NOTHING_HIDDEN),
      `${def.path}, is_public ${isPublic}`,
    );
  }
}

t.test("a list's public filter keeps exactly the records isPrivate lets a public caller see", async (t) => {
  agree(t, siteRoutes, (fields, isPublic) => ({ ...STAMPS, ...fields, is_public: isPublic }));
  agree(t, itemSetRoutes, (fields, isPublic) => ({ ...STAMPS, ...fields, is_public: isPublic }));
  agree(t, itemRoutes, (fields, isPublic) => ({ ...STAMPS, ...fields, media_ids: [], is_public: isPublic }));
  agree(t, sitePageRoutes, (fields, isPublic) => ({ ...STAMPS, ...fields, is_public: isPublic }));
  t.equal(mediaRoutes.privateByReference, true, "a media's privacy is its item's too: its list filters in the route");
});
