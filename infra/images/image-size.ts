/**
 * The upright size of an image file read from its header alone (no pixels decoded), for an image service's
 * `info.json` and a canvas's `width`/`height`: the size after the EXIF orientation is applied, as viewers show it.
 * And the media types we make derivatives and an IIIF image service for.
 */
import sharp from 'sharp';
import type { ImageSize } from './iiif-request.js';

export const IIIF_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/tiff',
  'image/webp',
  'image/gif',
]);

/**
 * The width and height once EXIF orientation is applied (orientations 5 to 8 swap them; for an animated GIF, one
 * frame's), or null when sharp cannot read the file (missing, not an image, a corrupt header).
 */
export async function uprightSize(path: string): Promise<ImageSize | null> {
  try {
    const { autoOrient: upright } = await sharp(path).metadata();
    if (upright === undefined || !(upright.width > 0 && upright.height > 0)) return null;
    return { width: upright.width, height: upright.height };
  } catch {
    return null;
  }
}
