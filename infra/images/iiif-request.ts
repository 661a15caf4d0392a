/**
 * IIIF Image API 3.0 image requests, compliance level 2 (https://iiif.io/api/image/3.0/): parses the
 * `{region}/{size}/{rotation}/{quality}.{format}` segments against the image's upright size and the service's
 * `maxWidth`/`maxHeight`/`maxArea`, and answers what to render (an `ImagePlan`) with the request's canonical form,
 * usable as a cache key and a `Link: rel="canonical"`. Pure: no I/O, no sharp; `render.ts` does the pixels.
 *
 * Errors (`ImageRequestError`): malformed syntax is 400; then unsupported features are 501 (a rotation that is a
 * number from 0 to 360 but not a multiple of 90, a format the spec names that we do not write: tif, gif, jp2, pdf);
 * then what depends on the image is 400 (a region outside it or empty, a size needing upscaling without `^`, a size
 * above the limits). Rounding: a `pct:` region rounds its edges (`Math.round(x * width / 100)` and
 * `Math.round((x + w) * width / 100)`, so adjacent percentages tile without gaps); a dimension derived from the
 * aspect ratio (`w,`, `,h`, `!w,h`, `max` under limits) and `pct:n` sizes use `Math.round`, never below 1 pixel and
 * never above a bound (w, h, the region, maxWidth/maxHeight); a size cut down to `maxArea` floors both dimensions.
 * `360` (and `!360`) is treated as `0`. `maxHeight` defaults to `maxWidth`, as the spec tells clients to infer.
 * The canonical region is that of the clipped region (`full` when it is the whole image); the canonical quality is
 * the one requested (`color` stays `color` although it renders as `default`).
 */

export interface ImageSize {
  width: number;
  height: number;
}
export interface ImageLimits {
  maxWidth?: number;
  maxHeight?: number;
  maxArea?: number;
}
export type Quality = 'default' | 'color' | 'gray' | 'bitonal';
export type ImageFormat = 'jpg' | 'png' | 'webp';
export interface ImagePlan {
  /** The region in full-resolution pixels of the (upright) image, clipped to the image. */
  region: { x: number; y: number; width: number; height: number };
  /** The size of the scaled region, before rotation: exactly what the request implies. */
  size: { width: number; height: number };
  mirror: boolean;
  rotation: 0 | 90 | 180 | 270;
  quality: Quality;
  format: ImageFormat;
  /** The canonical `region/size/rotation/quality.format` (spec section 4.8), e.g. `0,0,512,512/256,256/0/default.jpg`. */
  canonical: string;
}

export class ImageRequestError extends Error {
  constructor(
    readonly status: 400 | 501,
    message: string,
  ) {
    super(message);
    this.name = 'ImageRequestError';
  }
}

type Rect = ImagePlan['region'];
type RegionSpec =
  { kind: 'full' } | { kind: 'square' } | { kind: 'px' | 'pct'; x: number; y: number; w: number; h: number };
type SizeSpec = { upscale: boolean } & (
  | { kind: 'max' }
  | { kind: 'w'; w: number }
  | { kind: 'h'; h: number }
  | { kind: 'pct'; n: number }
  | { kind: 'wh' | 'confined'; w: number; h: number }
);
interface Bounds {
  maxWidth: number;
  maxHeight: number;
  maxArea: number;
}

const QUALITIES: ReadonlySet<string> = new Set<Quality>(['default', 'color', 'gray', 'bitonal']);
const FORMATS: ReadonlySet<string> = new Set<ImageFormat>(['jpg', 'png', 'webp']);
const UNSUPPORTED_FORMATS: ReadonlySet<string> = new Set(['tif', 'gif', 'jp2', 'pdf']);
const INTEGER = /^\d+$/;
/** Decimal digits and `.` only (spec section 4.7); `.5` and `5.` are tolerated. */
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

const bad = (message: string): ImageRequestError => new ImageRequestError(400, message);

function integer(text: string, what: string): number {
  const n = Number(text);
  if (!INTEGER.test(text) || !Number.isSafeInteger(n)) throw bad(`${what}: "${text}" is not a non-negative integer`);
  return n;
}

function decimal(text: string, what: string): number {
  const n = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(n)) throw bad(`${what}: "${text}" is not a non-negative number`);
  return n;
}

function parseRegion(text: string): RegionSpec {
  if (text === 'full' || text === 'square') return { kind: text };
  const pct = text.startsWith('pct:');
  const parts = (pct ? text.slice(4) : text).split(',');
  if (parts.length !== 4) throw bad(`region "${text}" is not full, square, x,y,w,h or pct:x,y,w,h`);
  const [x, y, w, h] = parts.map((part) => (pct ? decimal(part, 'region') : integer(part, 'region')));
  if (w === 0 || h === 0) throw bad(`region "${text}" has a zero width or height`);
  return { kind: pct ? 'pct' : 'px', x, y, w, h };
}

function parseSize(text: string): SizeSpec {
  const upscale = text.startsWith('^');
  const body = upscale ? text.slice(1) : text;
  if (body === 'max') return { upscale, kind: 'max' };
  if (body.startsWith('pct:')) {
    const n = decimal(body.slice(4), 'size');
    if (n === 0) throw bad('size pct:0 is empty');
    if (n > 100 && !upscale) throw bad(`size "${text}" enlarges the region: use ^pct:${body.slice(4)}`);
    return { upscale, kind: 'pct', n };
  }
  const confined = body.startsWith('!');
  const parts = (confined ? body.slice(1) : body).split(',');
  if (parts.length !== 2) throw bad(`size "${text}" is not max, w,, ,h, pct:n, w,h or !w,h (each optionally ^)`);
  const [w, h] = parts.map((part) => (part === '' ? undefined : integer(part, 'size')));
  if (w === 0 || h === 0) throw bad(`size "${text}" has a zero width or height`);
  if (w !== undefined && h !== undefined) return { upscale, kind: confined ? 'confined' : 'wh', w, h };
  if (!confined && w !== undefined) return { upscale, kind: 'w', w };
  if (!confined && h !== undefined) return { upscale, kind: 'h', h };
  throw bad(`size "${text}" needs ${confined ? 'both a width and a height' : 'a width or a height'}`);
}

function parseRotation(text: string): { mirror: boolean; degrees: number } {
  const mirror = text.startsWith('!');
  const degrees = decimal(mirror ? text.slice(1) : text, 'rotation');
  if (degrees > 360) throw bad(`rotation "${text}" is not between 0 and 360`);
  return { mirror, degrees };
}

function parseQualityFormat(text: string): { quality: Quality; format: string } {
  const match = /^([a-z]+)\.([a-z0-9]+)$/.exec(text);
  if (match === null) throw bad(`"${text}" is not {quality}.{format}`);
  const [, quality, format] = match;
  if (!isQuality(quality)) throw bad(`quality "${quality}" is not default, color, gray or bitonal`);
  if (!FORMATS.has(format) && !UNSUPPORTED_FORMATS.has(format)) throw bad(`format "${format}" is not an image format`);
  return { quality, format };
}

function isQuality(word: string): word is Quality {
  return QUALITIES.has(word);
}

function supportedRotation(degrees: number): ImagePlan['rotation'] {
  const turned = degrees % 360;
  if (turned === 0 || turned === 90 || turned === 180 || turned === 270) return turned;
  throw new ImageRequestError(501, `rotation by ${degrees} degrees is not supported (only multiples of 90)`);
}

function supportedFormat(format: string): ImageFormat {
  if (format === 'jpg' || format === 'png' || format === 'webp') return format;
  throw new ImageRequestError(501, `format "${format}" is not supported (jpg, png or webp)`);
}

/** The region in pixels, clipped to the image; 400 when nothing of it is inside the image. */
function resolveRegion(spec: RegionSpec, image: ImageSize): Rect {
  if (spec.kind === 'full') return { x: 0, y: 0, width: image.width, height: image.height };
  if (spec.kind === 'square') {
    const side = Math.min(image.width, image.height);
    const x = Math.floor((image.width - side) / 2);
    return { x, y: Math.floor((image.height - side) / 2), width: side, height: side };
  }
  const edges =
    spec.kind === 'px'
      ? [spec.x, spec.y, spec.x + spec.w, spec.y + spec.h]
      : [spec.x, spec.y, spec.x + spec.w, spec.y + spec.h].map((value, i) =>
          Math.round((value * (i % 2 === 0 ? image.width : image.height)) / 100),
        );
  const [left, top] = edges;
  const right = Math.min(edges[2], image.width);
  const bottom = Math.min(edges[3], image.height);
  if (left >= image.width || top >= image.height) throw bad('the region is outside the image');
  if (right <= left || bottom <= top) throw bad('the region is less than a pixel wide or high');
  return { x: left, y: top, width: right - left, height: bottom - top };
}

function boundsOf(limits: ImageLimits): Bounds {
  const maxWidth = limits.maxWidth ?? Infinity;
  return { maxWidth, maxHeight: limits.maxHeight ?? maxWidth, maxArea: limits.maxArea ?? Infinity };
}

/**
 * The largest size with the region's aspect ratio within `box` (either side may be Infinity) and `maxArea`. Within a
 * box, the binding dimension is exact and the other rounded, kept within its side and at least 1; cut down to an area,
 * both are floored (at least 1). With no bound at all, the region's own size.
 */
function fit(region: Rect, box: ImageSize, maxArea: number): ImageSize {
  const { width: rw, height: rh } = region;
  const unboxed = box.width === Infinity && box.height === Infinity;
  if (unboxed && maxArea === Infinity) return { width: rw, height: rh };
  if (!unboxed) {
    const size =
      box.width / rw <= box.height / rh
        ? { width: box.width, height: clamp(Math.round((box.width * rh) / rw), box.height) }
        : { width: clamp(Math.round((box.height * rw) / rh), box.width), height: box.height };
    if (size.width * size.height <= maxArea) return size;
  }
  const scale = Math.sqrt(maxArea / (rw * rh));
  return { width: Math.max(1, Math.floor(rw * scale)), height: Math.max(1, Math.floor(rh * scale)) };
}

function clamp(value: number, max: number): number {
  return Math.min(Math.max(1, value), max);
}

/** The size `max` (or `^max`) answers for the region: the region's own, or the largest the limits allow. */
function maxSize(region: Rect, bounds: Bounds, upscale: boolean): ImageSize {
  const box = {
    width: Math.min(upscale ? Infinity : region.width, bounds.maxWidth),
    height: Math.min(upscale ? Infinity : region.height, bounds.maxHeight),
  };
  return fit(region, box, bounds.maxArea);
}

function resolveSize(spec: SizeSpec, region: Rect, bounds: Bounds): ImageSize {
  const { width: rw, height: rh } = region;
  switch (spec.kind) {
    case 'max':
      return maxSize(region, bounds, spec.upscale);
    case 'w':
      return { width: spec.w, height: Math.max(1, Math.round((spec.w * rh) / rw)) };
    case 'h':
      return { width: Math.max(1, Math.round((spec.h * rw) / rh)), height: spec.h };
    case 'pct':
      return {
        width: Math.max(1, Math.round((rw * spec.n) / 100)),
        height: Math.max(1, Math.round((rh * spec.n) / 100)),
      };
    case 'wh':
      return { width: spec.w, height: spec.h };
    case 'confined': {
      const box = {
        width: Math.min(spec.w, spec.upscale ? Infinity : rw, bounds.maxWidth),
        height: Math.min(spec.h, spec.upscale ? Infinity : rh, bounds.maxHeight),
      };
      return fit(region, box, bounds.maxArea);
    }
  }
}

function checkSize(size: ImageSize, region: Rect, upscale: boolean, bounds: Bounds): void {
  const { width, height } = size;
  if (!upscale && (width > region.width || height > region.height)) {
    throw bad(`size ${width},${height} is larger than the ${region.width}x${region.height} region: prefix it with ^`);
  }
  if (width > bounds.maxWidth || height > bounds.maxHeight || width * height > bounds.maxArea) {
    throw bad(`size ${width},${height} is above the image service's maxWidth, maxHeight or maxArea`);
  }
}

function canonicalRegion(region: Rect, image: ImageSize): string {
  const whole = region.x === 0 && region.y === 0 && region.width === image.width && region.height === image.height;
  return whole ? 'full' : `${region.x},${region.y},${region.width},${region.height}`;
}

function canonicalSize(size: ImageSize, region: Rect, bounds: Bounds): string {
  const same = (other: ImageSize): boolean => other.width === size.width && other.height === size.height;
  if (size.width > region.width || size.height > region.height) {
    return same(maxSize(region, bounds, true)) ? '^max' : `^${size.width},${size.height}`;
  }
  return same(maxSize(region, bounds, false)) ? 'max' : `${size.width},${size.height}`;
}

/** Reads an image request's four path segments; throws `ImageRequestError` (400 or 501). */
export function planImageRequest(
  params: { region: string; size: string; rotation: string; qualityFormat: string },
  image: ImageSize,
  limits: ImageLimits = {},
): ImagePlan {
  const regionSpec = parseRegion(params.region);
  const sizeSpec = parseSize(params.size);
  const { mirror, degrees } = parseRotation(params.rotation);
  const { quality, format: formatWord } = parseQualityFormat(params.qualityFormat);
  const rotation = supportedRotation(degrees);
  const format = supportedFormat(formatWord);
  const bounds = boundsOf(limits);
  const region = resolveRegion(regionSpec, image);
  const size = resolveSize(sizeSpec, region, bounds);
  checkSize(size, region, sizeSpec.upscale, bounds);
  const canonical = [
    canonicalRegion(region, image),
    canonicalSize(size, region, bounds),
    `${mirror ? '!' : ''}${rotation}`,
    `${quality}.${format}`,
  ].join('/');
  return { region, size, mirror, rotation, quality, format, canonical };
}
