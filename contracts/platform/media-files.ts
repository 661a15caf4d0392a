import { Type, type Static } from '@sinclair/typebox';
import type { DomainEvent } from '../domain-event.js';
import { planImageRequest, type ImageSize } from '../../infra/images/iiif-request.js';
import { IIIF_IMAGE_TYPES } from '../../infra/images/image-size.js';

/**
 * A media's file and what is made from it, declared once: the events carry these shapes, the
 * read model keeps them, the representation and the image service read them (CONTRACT.md
 * section 9). Every figure a manifest or `info.json` needs is measured once, at ingest or by the
 * derivative worker, and recorded here: nothing reads it back from the file at request time.
 */

const StoredName = Type.String({ description: "The file's name in the file storage (generated, never the client's)." });
const Pixels = Type.Integer({ minimum: 1 });

/** The upright size of an image: after its EXIF orientation. */
export const PixelSize = Type.Object({ width: Pixels, height: Pixels });

/** The file as ingested. */
export const MediaFile = Type.Object({
  stored_name: StoredName,
  /** The uploaded file's (sanitised) name: `o:source`. */
  source: Type.String(),
  extension: Type.String(),
  /** Sniffed from the bytes, never the client's claim: `o:media_type`. */
  media_type: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String(),
  /** For an image whose header could be read: its upright size; null otherwise. */
  pixels: Type.Union([PixelSize, Type.Null()]),
});

/** One level of the tiled pyramid: page `page` of the TIFF is `width` x `height`. */
export const PyramidLevel = Type.Object({ width: Pixels, height: Pixels, page: Type.Integer({ minimum: 0 }) });

/** A JPEG made from the image. */
export const Derivative = Type.Object({ stored_name: StoredName, width: Pixels, height: Pixels });

/** The thumbnails Omeka S makes (`o:thumbnail_urls`) and the pyramid the image service reads tiles from. */
export const Derivatives = Type.Object({
  large: Derivative,
  medium: Derivative,
  square: Derivative,
  pyramid: Type.Object({ stored_name: StoredName, levels: Type.Array(PyramidLevel, { minItems: 1 }) }),
});

export type MediaFile = Static<typeof MediaFile>;
export type PixelSize = Static<typeof PixelSize>;
export type PyramidLevel = Static<typeof PyramidLevel>;
export type Derivative = Static<typeof Derivative>;
export type Derivatives = Static<typeof Derivatives>;
export type ThumbnailType = 'large' | 'medium' | 'square';
export const THUMBNAIL_TYPES: readonly ThumbnailType[] = ['large', 'medium', 'square'];

/** The boxes of the derivatives, as Omeka S makes them: within 800 and 200 (never enlarged), a 200 square. */
export const THUMBNAIL_BOXES: Record<ThumbnailType, number> = { large: 800, medium: 200, square: 200 };

/** Whether a file gets derivatives and an image service: an image type whose size could be read. */
export function isImageFile(file: MediaFile): file is MediaFile & { pixels: PixelSize } {
  return IIIF_IMAGE_TYPES.has(file.media_type) && file.pixels !== null;
}

/** Every stored file of a media: its original and what was made from it. */
export function storedNamesOf(file: MediaFile | null, derivatives: Derivatives | null): string[] {
  return [...(file ? [file.stored_name] : []), ...derivativeNames(derivatives)];
}

export function derivativeNames(derivatives: Derivatives | null): string[] {
  if (!derivatives) return [];
  return [...THUMBNAIL_TYPES.map((type) => derivatives[type].stored_name), derivatives.pyramid.stored_name];
}

export const MEDIA_FILE_EVENTS = {
  ingested: 'MediaFileIngested',
  derivativesMade: 'MediaDerivativesMade',
  derivativesFailed: 'MediaDerivativesFailed',
} as const;

/** The file, recorded in the same append as the media's MediaCreated. */
export type MediaFileIngested = DomainEvent<'MediaFileIngested', { id: number; file: MediaFile }>;
/** Derivatives made from the file of that sha256; `replaced`: the stored names of the ones they replace. */
export type MediaDerivativesMade = DomainEvent<
  'MediaDerivativesMade',
  { id: number; sha256: string; derivatives: Derivatives; replaced: string[] }
>;
/** The image could not be decoded: the file is kept, with no derivatives (and no retry). */
export type MediaDerivativesFailed = DomainEvent<
  'MediaDerivativesFailed',
  { id: number; sha256: string; reason: string }
>;

export type MediaFileEvent = MediaFileIngested | MediaDerivativesMade | MediaDerivativesFailed;

/**
 * The derivatives' requests in the Image API's terms, as Omeka S sizes them: `large` within
 * 800 x 800, `medium` within 200 x 200 (never enlarged), `square` the centre square within 200.
 */
export const THUMBNAIL_REQUESTS: Record<ThumbnailType, { region: string; size: string }> = {
  large: { region: 'full', size: '!800,800' },
  medium: { region: 'full', size: '!200,200' },
  square: { region: 'square', size: '!200,200' },
};

/** The plan of a derivative of an image of `size`: its pixel size is what info.json's `sizes` lists. */
export function thumbnailPlan(type: ThumbnailType, size: ImageSize) {
  return planImageRequest({ ...THUMBNAIL_REQUESTS[type], rotation: '0', qualityFormat: 'default.jpg' }, size);
}
