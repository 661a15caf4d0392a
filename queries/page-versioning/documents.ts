/** The version list as its queries read it: declared beside its projection (projections/page-versioning/versions.ts). */
export {
  PAGE_VERSIONS,
  pageVersions,
  type PageVersionDoc,
  type VersionOperation,
} from '../../projections/page-versioning/versions.js';
