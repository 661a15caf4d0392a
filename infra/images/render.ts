/**
 * Renders an IIIF image request (an `ImagePlan`, `iiif-request.ts`) with sharp, and makes the tiled pyramidal TIFF
 * it renders from. A render reads the smallest pyramid level that still has the resolution the answer needs, crops
 * the region there (only the tiles under it are decoded), scales it to exactly the planned size, mirrors, rotates,
 * applies the quality and encodes. An original not yet pyramided is rendered from directly, its EXIF orientation
 * applied first: sharp 0.35 orients before `extract` in one pipeline (the constructor's `autoOrient`, checked for
 * all eight orientations), and `flop` happens before `rotate` whatever the call order, as the spec's mirror-then-
 * rotate wants. A corrupt or truncated file rejects with sharp's Error (`failOn: 'error'`), never crashes.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import sharp, { type Region, type Sharp, type SharpOptions } from 'sharp';
import type { ImagePlan, ImageSize } from './iiif-request.js';

export interface PyramidLevel {
  width: number;
  height: number;
  page: number;
}
/**
 * Where pixels come from: `levels[0]` is full resolution. A pyramid: `path` is a multi-page tiled TIFF whose page
 * `page` holds that level, already upright (autoOrient false). An original not yet pyramided: one level,
 * `autoOrient: true` (the file's EXIF orientation is applied, and `levels[0]` is the upright size).
 */
export interface ImageSource {
  path: string;
  levels: PyramidLevel[];
  autoOrient: boolean;
}
export interface RenderedImage {
  data: Buffer;
  contentType: 'image/jpeg' | 'image/png' | 'image/webp';
  width: number;
  height: number;
}

/**
 * Pixels an input may declare (about a gigapixel, 32,000 x 32,000): above sharp's default of 16,383 x 16,383, which
 * large scans pass, yet a file claiming absurd dimensions is refused before anything is decoded.
 */
export const MAX_INPUT_PIXELS = 1_024_000_000;

const INPUT: SharpOptions = { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS };
const CONTENT_TYPES = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as const;

export function levelsOfOriginal(size: ImageSize): PyramidLevel[] {
  return [{ ...size, page: 0 }];
}

/**
 * The smallest level whose resolution is still at least what the answer needs in both directions (the first, full
 * resolution, when the request upscales).
 */
export function chooseLevel(levels: readonly PyramidLevel[], plan: Pick<ImagePlan, 'region' | 'size'>): PyramidLevel {
  const [full] = levels;
  const needX = plan.size.width / plan.region.width;
  const needY = plan.size.height / plan.region.height;
  let best = full;
  for (const level of levels) {
    const enough = level.width / full.width >= needX && level.height / full.height >= needY;
    if (enough && level.width * level.height < best.width * best.height) best = level;
  }
  return best;
}

/** The plan's region in a level's pixels: start floored, end ceiled, clamped to the level, at least a pixel. */
export function regionInLevel(region: ImagePlan['region'], level: PyramidLevel, full: PyramidLevel): Region {
  const sx = level.width / full.width;
  const sy = level.height / full.height;
  const left = Math.min(Math.floor(region.x * sx), level.width - 1);
  const top = Math.min(Math.floor(region.y * sy), level.height - 1);
  const right = Math.min(Math.ceil((region.x + region.width) * sx), level.width);
  const bottom = Math.min(Math.ceil((region.y + region.height) * sy), level.height);
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

export async function renderImage(source: ImageSource, plan: ImagePlan): Promise<RenderedImage> {
  const level = chooseLevel(source.levels, plan);
  let image = sharp(source.path, { ...INPUT, page: level.page, autoOrient: source.autoOrient })
    .extract(regionInLevel(plan.region, level, source.levels[0]))
    .resize({ width: plan.size.width, height: plan.size.height, fit: 'fill' });
  if (plan.mirror) image = image.flop();
  if (plan.rotation !== 0) image = image.rotate(plan.rotation);
  image = withQuality(image, plan);
  const { data, info } = await encode(image, plan.format).toBuffer({ resolveWithObject: true });
  return { data, contentType: CONTENT_TYPES[plan.format], width: info.width, height: info.height };
}

function withQuality(image: Sharp, plan: ImagePlan): Sharp {
  // JPEG has no alpha, and bitonal pixels are black or white: both are laid on white.
  const flat = plan.format === 'jpg' || plan.quality === 'bitonal' ? image.flatten({ background: '#ffffff' }) : image;
  if (plan.quality === 'gray') return flat.greyscale().toColourspace('b-w');
  if (plan.quality === 'bitonal') return flat.threshold(128).toColourspace('b-w');
  return flat;
}

function encode(image: Sharp, format: ImagePlan['format']): Sharp {
  if (format === 'png') return image.png();
  if (format === 'webp') return image.webp({ quality: 85 });
  return image.jpeg({ quality: 85, mozjpeg: false });
}

/**
 * Writes `outputPath`, a tiled (256 x 256) pyramidal TIFF of the upright input, in 8-bit sRGB (16-bit and CMYK
 * inputs converted; an animated GIF's first frame): JPEG-compressed, or deflate keeping the alpha channel when the
 * input has transparency that shows. Written beside and renamed into place, so a failure leaves nothing behind.
 * Answers each page's size (page 0 full resolution, then halving) and whether alpha was kept.
 */
export async function makePyramid(
  inputPath: string,
  outputPath: string,
): Promise<{ levels: PyramidLevel[]; hasAlpha: boolean }> {
  const input = () => sharp(inputPath, { ...INPUT, autoOrient: true });
  const hasAlpha = (await input().metadata()).hasAlpha && !(await input().stats()).isOpaque;
  const tile = { tile: true, tileWidth: 256, tileHeight: 256, pyramid: true } as const;
  const srgb = input().toColourspace('srgb');
  const pipeline = hasAlpha
    ? srgb.tiff({ ...tile, compression: 'deflate' })
    : srgb.removeAlpha().tiff({ ...tile, compression: 'jpeg', quality: 90 });
  const partPath = `${outputPath}.${randomUUID()}.part`;
  try {
    await pipeline.toFile(partPath);
    await rename(partPath, outputPath);
  } catch (error) {
    await rm(partPath, { force: true });
    throw error;
  }
  return { levels: await pyramidLevels(outputPath), hasAlpha };
}

/** Each page's size of a pyramidal TIFF, page 0 first. */
export async function pyramidLevels(path: string): Promise<PyramidLevel[]> {
  const { pages = 1 } = await sharp(path, INPUT).metadata();
  return Promise.all(
    Array.from({ length: pages }, async (_, page) => {
      const { width, height } = await sharp(path, { ...INPUT, page }).metadata();
      return { width, height, page };
    }),
  );
}
