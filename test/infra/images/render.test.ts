import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import t from 'tap';
import { planImageRequest, type ImagePlan, type ImageSize } from '../../../infra/images/iiif-request.js';
import { IIIF_IMAGE_TYPES, uprightSize } from '../../../infra/images/image-size.js';
import {
  chooseLevel,
  levelsOfOriginal,
  makePyramid,
  regionInLevel,
  renderImage,
  type ImageSource,
  type PyramidLevel,
} from '../../../infra/images/render.js';

type Rgb = readonly [number, number, number];
const COLOURS: Record<string, Rgb> = {
  red: [255, 0, 0],
  green: [0, 255, 0],
  blue: [0, 0, 255],
  yellow: [255, 255, 0],
  white: [255, 255, 255],
  black: [0, 0, 0],
};

/** Quadrants: red top left, green top right, blue bottom left, yellow bottom right. */
function quadrants(width: number, height: number): Sharp {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const colour = y < height / 2 ? (x < width / 2 ? 'red' : 'green') : x < width / 2 ? 'blue' : 'yellow';
      raw.set(COLOURS[colour], (y * width + x) * 3);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } });
}

/** An encoded answer: its format and channels as encoded, and its pixels as sRGB(A) (`stride` values a pixel). */
interface Decoded {
  width: number;
  height: number;
  channels: number;
  format: string | undefined;
  data: Buffer;
  stride: number;
}

async function decode(buffer: Buffer): Promise<Decoded> {
  const { format, channels } = await sharp(buffer).metadata();
  const { data, info } = await sharp(buffer).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels, format, data, stride: info.channels };
}

function pixel(image: Decoded, fx: number, fy: number): number[] {
  const x = Math.min(image.width - 1, Math.floor(fx * image.width));
  const y = Math.min(image.height - 1, Math.floor(fy * image.height));
  const at = (y * image.width + x) * image.stride;
  return Array.from(image.data.subarray(at, at + image.stride));
}

/** The name of the nearest test colour to a pixel (grey pixels are read as r=g=b). */
function colourAt(image: Decoded, fx: number, fy: number): string {
  const p = pixel(image, fx, fy);
  const rgb = image.stride < 3 ? [p[0], p[0], p[0]] : p.slice(0, 3);
  let best = '';
  let bestDistance = Infinity;
  for (const [name, c] of Object.entries(COLOURS)) {
    const distance = rgb.reduce((sum, v, i) => sum + (v - c[i]) ** 2, 0);
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/** Colours near the four corners: top left, top right, bottom left, bottom right. */
const corners = (image: Decoded): string[] =>
  [
    [0.1, 0.1],
    [0.9, 0.1],
    [0.1, 0.9],
    [0.9, 0.9],
  ].map(([fx, fy]) => colourAt(image, fx, fy));

function plan(url: string, image: ImageSize): ImagePlan {
  const [region, size, rotation, qualityFormat] = url.split('/');
  return planImageRequest({ region, size, rotation, qualityFormat }, image);
}

const FULL = { width: 1200, height: 800 };

t.test('renders from an original and from its pyramid', async (t) => {
  const dir = t.testdir();
  const jpg = join(dir, 'q.jpg');
  await quadrants(FULL.width, FULL.height).jpeg({ quality: 95 }).toFile(jpg);
  const pyramid = await makePyramid(jpg, join(dir, 'q.tif'));
  t.equal(pyramid.hasAlpha, false);
  t.same(pyramid.levels[0], { ...FULL, page: 0 }, 'page 0 is full size');
  t.ok(pyramid.levels.length >= 3, 'several levels');
  for (const [i, level] of pyramid.levels.entries()) {
    t.equal(level.page, i);
    if (i > 0) t.equal(level.width, Math.floor(pyramid.levels[i - 1].width / 2), 'each level halves');
  }
  t.same((await readdir(dir)).sort(), ['q.jpg', 'q.tif'], 'no part file left');
  const sources: Record<string, ImageSource> = {
    original: { path: jpg, levels: levelsOfOriginal(FULL), autoOrient: true },
    pyramid: { path: join(dir, 'q.tif'), levels: pyramid.levels, autoOrient: false },
  };

  const cases: [string, string[]][] = [
    ['full/max/0/default.png', ['red', 'green', 'blue', 'yellow']],
    ['600,0,600,400/max/0/default.png', ['green', 'green', 'green', 'green']],
    ['300,200,600,400/150,/0/default.png', ['red', 'green', 'blue', 'yellow']],
    ['square/!100,100/0/default.png', ['red', 'green', 'blue', 'yellow']],
    ['full/pct:10/0/default.png', ['red', 'green', 'blue', 'yellow']],
    ['full/!300,300/!0/default.png', ['green', 'red', 'yellow', 'blue']],
    ['full/300,/90/default.png', ['blue', 'red', 'yellow', 'green']],
    ['full/300,/180/default.png', ['yellow', 'blue', 'green', 'red']],
    ['full/300,/270/default.png', ['green', 'yellow', 'red', 'blue']],
    ['full/300,/!90/default.png', ['yellow', 'green', 'blue', 'red']],
    ['full/300,/!180/default.png', ['blue', 'yellow', 'red', 'green']],
    ['full/333,111/0/default.jpg', ['red', 'green', 'blue', 'yellow']],
    ['pct:50,50,50,50/77,/0/default.webp', ['yellow', 'yellow', 'yellow', 'yellow']],
    ['0,0,600,400/^1000,/0/default.jpg', ['red', 'red', 'red', 'red']],
    ['1199,799,1,1/max/0/default.png', ['yellow', 'yellow', 'yellow', 'yellow']],
    ['1000,0,1000,1000/7,3/90/default.png', ['yellow', 'green', 'yellow', 'green']],
  ];
  for (const [url, expected] of cases) {
    const p = plan(url, FULL);
    const turned = p.rotation === 90 || p.rotation === 270;
    for (const [name, source] of Object.entries(sources)) {
      const answer = await renderImage(source, p);
      const image = await decode(answer.data);
      const want = turned ? [p.size.height, p.size.width] : [p.size.width, p.size.height];
      t.same([image.width, image.height], want, `${name} ${url}: exact size`);
      t.same([answer.width, answer.height], want, `${name} ${url}: reported size`);
      t.equal(image.channels, 3, `${name} ${url}: colour`);
      t.same(corners(image), expected, `${name} ${url}: the right pixels`);
    }
  }
});

t.test('qualities and formats', async (t) => {
  const dir = t.testdir();
  const png = join(dir, 'q.png');
  await quadrants(FULL.width, FULL.height).png().toFile(png);
  const source = { path: png, levels: levelsOfOriginal(FULL), autoOrient: true };
  const formats = { jpg: ['image/jpeg', 'jpeg'], png: ['image/png', 'png'], webp: ['image/webp', 'webp'] } as const;
  for (const [format, [contentType, decoded]] of Object.entries(formats)) {
    for (const quality of ['default', 'color', 'gray', 'bitonal']) {
      const answer = await renderImage(source, plan(`full/300,/0/${quality}.${format}`, FULL));
      const image = await decode(answer.data);
      const label = `${quality}.${format}`;
      t.equal(answer.contentType, contentType, label);
      t.equal(image.format, decoded, `${label}: encoded as it says`);
      t.same([image.width, image.height], [300, 200]);
      if (quality === 'default' || quality === 'color') {
        t.same(corners(image), ['red', 'green', 'blue', 'yellow'], `${label}: colour as is`);
        continue;
      }
      // WebP has no grey mode: its answer decodes as RGB with r = g = b.
      t.equal(image.channels, format === 'webp' ? 3 : 1, `${label}: channels`);
      for (let i = 0; i < image.data.length; i += image.stride) {
        const [r, g, b] = image.stride === 1 ? [image.data[i], image.data[i], image.data[i]] : image.data.subarray(i);
        if (Math.abs(r - g) > 2 || Math.abs(g - b) > 2) {
          t.fail(`${label}: pixel ${i / image.stride} is not grey: ${r},${g},${b}`);
          break;
        }
      }
      if (quality === 'bitonal' && format === 'png') {
        t.same(new Set(image.data), new Set([0, 255]), 'bitonal png: only black and white');
      }
      if (quality === 'bitonal') {
        // Red and blue are darker than 128 in luminance; green and yellow are lighter.
        t.same(corners(image), ['black', 'white', 'black', 'white'], `${label}: thresholded`);
      }
    }
  }
});

t.test('transparency: kept in png and webp, laid on white in jpg', async (t) => {
  const dir = t.testdir();
  const png = join(dir, 'alpha.png');
  await sharp({ create: { width: 400, height: 200, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0 } } })
    .png()
    .toFile(png);
  const size = { width: 400, height: 200 };
  const original = { path: png, levels: levelsOfOriginal(size), autoOrient: true };
  const pyramid = await makePyramid(png, join(dir, 'alpha.tif'));
  t.equal(pyramid.hasAlpha, true);
  const fromPyramid = { path: join(dir, 'alpha.tif'), levels: pyramid.levels, autoOrient: false };
  for (const source of [original, fromPyramid]) {
    const jpg = await decode((await renderImage(source, plan('full/max/0/default.jpg', size))).data);
    t.equal(jpg.channels, 3);
    t.same(pixel(jpg, 0.5, 0.5), [255, 255, 255], 'transparent is white in jpg');
    const kept = await decode((await renderImage(source, plan('full/max/0/default.png', size))).data);
    t.equal(kept.channels, 4, 'png keeps alpha');
    t.equal(pixel(kept, 0.5, 0.5)[3], 0);
    const gray = await decode((await renderImage(source, plan('full/max/0/gray.png', size))).data);
    t.equal(gray.channels, 2, 'gray png keeps alpha');
  }
});

t.test('the level choice reads the smallest level with enough resolution', async (t) => {
  const levels: PyramidLevel[] = [
    { width: 10000, height: 8000, page: 0 },
    { width: 5000, height: 4000, page: 1 },
    { width: 2500, height: 2000, page: 2 },
    { width: 1250, height: 1000, page: 3 },
    { width: 625, height: 500, page: 4 },
    { width: 312, height: 250, page: 5 },
    { width: 156, height: 125, page: 6 },
  ];
  const full = { width: 10000, height: 8000 };
  const page = (url: string) => chooseLevel(levels, plan(url, full)).page;
  t.equal(page('full/max/0/default.jpg'), 0);
  t.equal(page('0,0,256,256/max/0/default.jpg'), 0, 'a full-resolution tile');
  t.equal(page('0,0,2048,2048/256,/0/default.jpg'), 3, 'a tile at 1/8');
  t.equal(page('0,0,2048,2048/257,/0/default.jpg'), 2, 'a pixel more than 1/8');
  t.equal(page('0,0,4096,4096/256,/0/default.jpg'), 4, 'a tile at 1/16');
  t.equal(page('full/1250,/0/default.jpg'), 3);
  t.equal(page('full/1251,/0/default.jpg'), 2);
  t.equal(page('full/!150,150/0/default.jpg'), 6);
  t.equal(page('full/312,250/0/default.jpg'), 5, 'a level whose size was floored');
  t.equal(page('full/5000,1/0/default.jpg'), 1, 'each direction needs enough: width');
  t.equal(page('full/1,4000/0/default.jpg'), 1, 'each direction needs enough: height');
  t.equal(page('0,0,10,10/^100,/0/default.jpg'), 0, 'upscaling reads full resolution');
  t.equal(chooseLevel([levels[0]], plan('full/!150,150/0/default.jpg', full)).page, 0, 'an original');
  t.same(
    regionInLevel({ x: 9999, y: 7999, width: 1, height: 1 }, levels[5], levels[0]),
    { left: 311, top: 249, width: 1, height: 1 },
    'the last pixel stays inside the level',
  );
  t.same(
    regionInLevel({ x: 2049, y: 1023, width: 2047, height: 2049 }, levels[3], levels[0]),
    { left: 256, top: 127, width: 256, height: 257 },
    'start floored, end ceiled',
  );
});

t.test('EXIF orientation: originals render upright, pyramids are made upright', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'o6.jpg');
  // Stored 400x300; orientation 6 turns it a quarter clockwise: upright it is 300x400, blue-red over yellow-green.
  await quadrants(400, 300).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toFile(path);
  t.equal((await sharp(path).metadata()).orientation, 6);
  const upright = await uprightSize(path);
  t.same(upright, { width: 300, height: 400 });
  const size = upright ?? { width: 0, height: 0 };
  const pyramid = await makePyramid(path, join(dir, 'o6.tif'));
  t.same(pyramid.levels[0], { width: 300, height: 400, page: 0 });
  const sources = {
    original: { path, levels: levelsOfOriginal(size), autoOrient: true },
    pyramid: { path: join(dir, 'o6.tif'), levels: pyramid.levels, autoOrient: false },
  };
  for (const [name, source] of Object.entries(sources)) {
    const top = await decode((await renderImage(source, plan('0,0,300,100/max/0/default.png', size))).data);
    t.same([top.width, top.height], [300, 100], `${name}: the region is in upright pixels`);
    t.same(corners(top), ['blue', 'red', 'blue', 'red'], `${name}: the top of the upright image`);
    const whole = await decode((await renderImage(source, plan('full/150,/!90/default.png', size))).data);
    t.same([whole.width, whole.height], [200, 150], `${name}: mirrored and turned after orienting`);
    t.same(corners(whole), ['green', 'red', 'yellow', 'blue'], `${name}: mirrored and turned`);
  }
});

t.test('inputs converted by makePyramid: 16-bit, CMYK, greyscale, animated GIF', async (t) => {
  const dir = t.testdir();
  const colour = { r: 10, g: 100, b: 200 };
  await sharp({ create: { width: 600, height: 400, channels: 3, background: colour } })
    .toColourspace('rgb16')
    .png()
    .toFile(join(dir, 'deep.png'));
  await sharp({ create: { width: 600, height: 400, channels: 3, background: colour } })
    .toColourspace('cmyk')
    .jpeg()
    .toFile(join(dir, 'cmyk.jpg'));
  await sharp({ create: { width: 600, height: 400, channels: 3, background: colour } })
    .greyscale()
    .toColourspace('b-w')
    .png()
    .toFile(join(dir, 'grey.png'));
  t.equal((await sharp(join(dir, 'deep.png')).metadata()).depth, 'ushort');
  t.equal((await sharp(join(dir, 'cmyk.jpg')).metadata()).space, 'cmyk');
  for (const name of ['deep.png', 'cmyk.jpg', 'grey.png']) {
    const out = join(dir, `${name}.tif`);
    const { levels } = await makePyramid(join(dir, name), out);
    const meta = await sharp(out).metadata();
    t.match(meta, { depth: 'uchar', space: 'srgb', channels: 3, width: 600, height: 400 }, `${name}: 8-bit sRGB`);
    const answer = await renderImage(
      { path: out, levels, autoOrient: false },
      plan('full/60,/0/default.png', levels[0]),
    );
    const [r, g, b] = pixel(await decode(answer.data), 0.5, 0.5);
    const [er, eg, eb] = pixel(
      await decode(await sharp(join(dir, name)).toColourspace('srgb').png().toBuffer()),
      0.5,
      0.5,
    );
    t.ok(Math.abs(r - er) < 16 && Math.abs(g - eg) < 16 && Math.abs(b - eb) < 16, `${name}: colour ${r},${g},${b}`);
  }
  // An animated GIF of a red, a green and a blue frame: the pyramid is the first frame.
  const frame = 100 * 60;
  const raw = Buffer.alloc(frame * 3 * 4);
  for (let i = 0; i < frame * 3; i++) {
    const f = Math.floor(i / frame);
    raw.set([f === 0 ? 255 : 0, f === 1 ? 255 : 0, f === 2 ? 255 : 0, 255], i * 4);
  }
  await sharp(raw, { raw: { width: 100, height: 180, channels: 4, pageHeight: 60 } })
    .gif()
    .toFile(join(dir, 'anim.gif'));
  t.same(await uprightSize(join(dir, 'anim.gif')), { width: 100, height: 60 }, 'one frame');
  const gif = await makePyramid(join(dir, 'anim.gif'), join(dir, 'anim.tif'));
  t.same(gif.levels[0], { width: 100, height: 60, page: 0 });
  t.equal(gif.hasAlpha, false, 'an opaque GIF loses its unused alpha channel');
  const first = await renderImage(
    { path: join(dir, 'anim.tif'), levels: gif.levels, autoOrient: false },
    plan('full/max/0/default.png', { width: 100, height: 60 }),
  );
  t.same(corners(await decode(first.data)), ['red', 'red', 'red', 'red']);
});

t.test('a large TIFF (10,000 x 8,000) renders and pyramids', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'large.tif');
  const full = { width: 10000, height: 8000 };
  await sharp({ create: { ...full, channels: 3, background: { r: 0, g: 128, b: 0 } } })
    .tiff({ compression: 'lzw' })
    .toFile(path);
  t.same(await uprightSize(path), full);
  const original = { path, levels: levelsOfOriginal(full), autoOrient: true };
  const tile = await renderImage(original, plan('9488,7488,512,512/256,/0/default.jpg', full));
  t.same([tile.width, tile.height], [256, 256]);
  const { levels } = await makePyramid(path, join(dir, 'large.pyramid.tif'));
  t.same(levels[0], { ...full, page: 0 });
  const source = { path: join(dir, 'large.pyramid.tif'), levels, autoOrient: false };
  const thumb = await renderImage(source, plan('full/!200,200/0/default.jpg', full));
  t.same([thumb.width, thumb.height], [200, 160]);
  t.same(corners(await decode(thumb.data)), ['green', 'green', 'green', 'green']);
});

t.test('corrupt files reject with an Error and leave nothing behind', async (t) => {
  const dir = t.testdir();
  const whole = await quadrants(1200, 800).jpeg({ quality: 95 }).toBuffer();
  const truncated = join(dir, 'truncated.jpg');
  await writeFile(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  const garbage = join(dir, 'garbage.jpg');
  await writeFile(garbage, 'not an image');
  const source = { path: truncated, levels: levelsOfOriginal(FULL), autoOrient: true };
  await t.rejects(renderImage(source, plan('full/max/0/default.jpg', FULL)), Error, 'a truncated JPEG');
  await t.rejects(renderImage(source, plan('0,600,100,100/max/0/default.png', FULL)), Error, 'its missing part');
  await t.rejects(makePyramid(truncated, join(dir, 'truncated.tif')), Error);
  await t.rejects(makePyramid(garbage, join(dir, 'garbage.tif')), Error);
  await t.rejects(renderImage({ ...source, path: join(dir, 'missing.jpg') }, plan('full/max/0/default.jpg', FULL)));
  t.same((await readdir(dir)).sort(), ['garbage.jpg', 'truncated.jpg'], 'no pyramid or part file');
  t.equal(await uprightSize(garbage), null);
  t.equal(await uprightSize(join(dir, 'missing.jpg')), null);
  t.same(await uprightSize(truncated), FULL, 'the header alone is enough for the size');
  t.ok((await readFile(truncated)).length > 0);
});

t.test('the image types with an image service', async (t) => {
  t.same([...IIIF_IMAGE_TYPES].sort(), ['image/gif', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp']);
  t.notOk(IIIF_IMAGE_TYPES.has('application/pdf'));
});
