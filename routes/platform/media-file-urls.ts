import { Type, type Static } from '@sinclair/typebox';
import { THUMBNAIL_TYPES, type MediaFile, type ThumbnailType } from '../../contracts/platform/media-files.js';
import type { ItemFileEntry, MediaDoc } from '../../contracts/platform/documents.js';
import { reference } from '../json-ld.js';

/**
 * Where a media's file and derivatives are served (routes/platform/media-file-routes.ts), and
 * the representation keys that name them (CONTRACT.md section 9). The URLs name the media, so
 * each answers only to callers who may see it.
 */
export const FILES_PREFIX = '/files';

export function originalUrl(baseUrl: string, mediaId: number, file: Pick<MediaFile, 'extension'>): string {
  return `${baseUrl}${FILES_PREFIX}/original/${mediaId}${file.extension ? `.${file.extension}` : ''}`;
}

export function thumbnailUrl(baseUrl: string, mediaId: number, type: ThumbnailType): string {
  return `${baseUrl}${FILES_PREFIX}/${type}/${mediaId}.jpg`;
}

export function imageServiceUrl(baseUrl: string, mediaId: number): string {
  return `${baseUrl}/iiif/3/image/${mediaId}`;
}

const Url = Type.String({ description: 'An absolute URL on this server.' });
const NullableUrl = Type.Union([Url, Type.Null()]);

/** `o:thumbnail_urls`: the three, once made; `{}` before, and for files that are not images. */
export const ThumbnailUrls = Type.Object(
  { large: Type.Optional(Url), medium: Type.Optional(Url), square: Type.Optional(Url) },
  {
    additionalProperties: false,
    description: 'The derivatives, once made; `{}` before and for files that are not images.',
  },
);

/** An item's `thumbnail_display_urls`: its primary media's, nulls without one. */
export const ThumbnailDisplayUrls = Type.Object(
  { large: NullableUrl, medium: NullableUrl, square: NullableUrl },
  {
    additionalProperties: false,
    description: "Its primary media's thumbnails; nulls without one (or before they are made).",
  },
);

/** The keys a media's representation adds for its file. */
export const MediaFileKeys = {
  'o:ingester': Type.Optional(Type.Literal('upload', { description: 'How the file came: uploaded.' })),
  'o:source': Type.Optional(Type.String({ description: "The uploaded file's name." })),
  'o:media_type': Type.Optional(Type.String({ description: 'The media type, sniffed from the bytes.' })),
  'o:size': Type.Optional(Type.Integer({ description: 'Bytes.' })),
  'o:sha256': Type.Optional(Type.String({ description: "The file's SHA-256, in hex." })),
  'o:original_url': Type.Optional({ ...Url, description: 'The file as uploaded.' }),
  'o:thumbnail_urls': ThumbnailUrls,
};

export const ItemFileKeys = {
  'o:primary_media': Type.Union([Type.Object({ '@id': Url, 'o:id': Type.Integer() }), Type.Null()], {
    description: 'Its first media with a file that the caller may see, or null.',
  }),
  thumbnail_display_urls: ThumbnailDisplayUrls,
};

export const MediaFileShape = Type.Object(MediaFileKeys);
export const ItemFileShape = Type.Object(ItemFileKeys);

function thumbnails(baseUrl: string, mediaId: number): Record<ThumbnailType, string> {
  const urls = { large: '', medium: '', square: '' };
  for (const type of THUMBNAIL_TYPES) urls[type] = thumbnailUrl(baseUrl, mediaId, type);
  return urls;
}

/** The keys of a media's file (only `o:thumbnail_urls: {}` without one). */
export function mediaFileKeys(doc: MediaDoc, baseUrl: string): Static<typeof MediaFileShape> {
  const file = doc.file;
  if (!file) return { 'o:thumbnail_urls': {} };
  return {
    'o:ingester': 'upload',
    'o:source': file.source,
    'o:media_type': file.media_type,
    'o:size': file.size,
    'o:sha256': file.sha256,
    'o:original_url': originalUrl(baseUrl, doc.id, file),
    'o:thumbnail_urls': doc.file_status === 'made' ? thumbnails(baseUrl, doc.id) : {},
  };
}

const NO_THUMBNAILS = { large: null, medium: null, square: null };

/** An item's primary media and thumbnails, among the file entries `visible` lets the caller see. */
export function itemFileKeys(
  files: readonly ItemFileEntry[] | undefined,
  baseUrl: string,
  visible: (entry: ItemFileEntry) => boolean,
): Static<typeof ItemFileShape> {
  const primary = files?.find(visible);
  if (!primary) return { 'o:primary_media': null, thumbnail_display_urls: NO_THUMBNAILS };
  return {
    'o:primary_media': reference(baseUrl, 'media', primary.id),
    thumbnail_display_urls: primary.thumbnails ? thumbnails(baseUrl, primary.id) : NO_THUMBNAILS,
  };
}
