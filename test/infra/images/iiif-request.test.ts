import t from 'tap';
import {
  ImageRequestError,
  planImageRequest,
  type ImageLimits,
  type ImagePlan,
  type ImageSize,
} from '../../../infra/images/iiif-request.js';

// The spec's examples use a 300x200 image.
const IMAGE: ImageSize = { width: 300, height: 200 };

function plan(url: string, image: ImageSize = IMAGE, limits?: ImageLimits): ImagePlan {
  const [region, size, rotation, qualityFormat] = url.split('/');
  return planImageRequest({ region, size, rotation, qualityFormat }, image, limits);
}

function refusal(url: string, image: ImageSize = IMAGE, limits?: ImageLimits): number | string {
  try {
    plan(url, image, limits);
    return 'accepted';
  } catch (error) {
    if (error instanceof ImageRequestError) return error.status;
    throw error;
  }
}

const rect = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });

t.test('region: full, square, pixels and percentages (the spec examples)', async (t) => {
  t.same(plan('full/max/0/default.jpg').region, rect(0, 0, 300, 200));
  t.same(plan('square/max/0/default.jpg').region, rect(50, 0, 200, 200), 'landscape: centred horizontally');
  t.same(plan('square/max/0/default.jpg', { width: 201, height: 300 }).region, rect(0, 49, 201, 201), 'portrait');
  t.same(plan('125,15,120,140/max/0/default.jpg').region, rect(125, 15, 120, 140));
  t.same(plan('pct:41.6,7.5,40,70/max/0/default.jpg').region, rect(125, 15, 120, 140));
  t.same(plan('125,15,200,200/max/0/default.jpg').region, rect(125, 15, 175, 185), 'clipped: 175,185 px');
  t.same(plan('pct:41.6,7.5,66.6,100/max/0/default.jpg').region, rect(125, 15, 175, 185), 'clipped');
  t.same(plan('pct:0,0,100,100/max/0/default.jpg').region, rect(0, 0, 300, 200));
  t.same(
    plan('pct:.5,0,50.,50/max/0/default.jpg').region,
    rect(2, 0, 150, 100),
    'edges rounded: 1.5 -> 2, 151.5 -> 152',
  );
  t.same(plan('299,199,1,1/max/0/default.jpg').region, rect(299, 199, 1, 1), 'the last pixel');
});

t.test('percentage regions tile without gaps or overlaps', async (t) => {
  const image = { width: 1001, height: 7 };
  let next = 0;
  for (let i = 0; i < 3; i++) {
    const pct = (100 / 3).toFixed(4);
    const x = (i * Number(pct)).toFixed(4);
    const { region } = plan(`pct:${x},0,${pct},100/max/0/default.jpg`, image);
    t.equal(region.x, next, `third ${i} starts where the previous ended`);
    next = region.x + region.width;
  }
  t.equal(next, 1001);
});

t.test('region refusals', async (t) => {
  for (const region of ['300,0,10,10', '0,200,10,10', '5000,5000,1,1', 'pct:100,0,10,10', 'pct:0,100,10,10']) {
    t.equal(refusal(`${region}/max/0/default.jpg`), 400, `${region}: outside the image`);
  }
  for (const region of ['0,0,0,10', '0,0,10,0', 'pct:0,0,0,10', 'pct:0,0,0.1,0.1']) {
    t.equal(refusal(`${region}/max/0/default.jpg`), 400, `${region}: empty`);
  }
  const malformed = [
    '',
    'Full',
    'fulls',
    'squares',
    '1,2,3',
    '1,2,3,4,5',
    '-1,0,10,10',
    '1.5,0,10,10',
    '1e2,0,1,1',
    ' 1,2,3,4',
    '1,,3,4',
    'pct:',
    'pct:a,0,1,1',
    'pct:-1,0,1,1',
    'pct:+1,0,1,1',
    'pct:1,2,3',
    'pct:1..2,0,1,1',
    'px:1,2,3,4',
  ];
  for (const region of malformed) t.equal(refusal(`${region}/max/0/default.jpg`), 400, `"${region}" is malformed`);
});

t.test('size: every form, on the spec examples', async (t) => {
  const size = (s: string, limits?: ImageLimits) => plan(`full/${s}/0/default.jpg`, IMAGE, limits).size;
  t.same(size('max'), { width: 300, height: 200 });
  t.same(size('^max'), { width: 300, height: 200 }, 'nothing to upscale to without limits');
  t.same(size('max', { maxWidth: 200 }), { width: 200, height: 133 }, 'maxWidth 200 (maxHeight inferred)');
  t.same(size('max', { maxWidth: 200, maxHeight: 100 }), { width: 150, height: 100 });
  t.same(size('^max', { maxWidth: 360 }), { width: 360, height: 240 }, '^max with maxWidth 360');
  t.same(size('max', { maxArea: 6000 }), { width: 94, height: 63 }, 'maxArea: floored, 5922 <= 6000');
  t.same(size('^max', { maxArea: 240000 }), { width: 600, height: 400 });
  t.same(size('150,'), { width: 150, height: 100 });
  t.same(size('^360,'), { width: 360, height: 240 });
  t.same(size(',150'), { width: 225, height: 150 });
  t.same(size('^,240'), { width: 360, height: 240 });
  t.same(size('pct:50'), { width: 150, height: 100 });
  t.same(size('pct:100'), { width: 300, height: 200 });
  t.same(size('^pct:120'), { width: 360, height: 240 });
  t.same(size('pct:0.1'), { width: 1, height: 1 }, '0.3 x 0.2 px: at least 1');
  t.same(size('225,100'), { width: 225, height: 100 });
  t.same(size('^360,360'), { width: 360, height: 360 });
  t.same(size('!225,100'), { width: 150, height: 100 }, 'the spec: 150,100');
  t.same(size('^!360,360'), { width: 360, height: 240 }, 'the spec: 360,240');
  t.same(size('!1000,1000'), { width: 300, height: 200 }, 'without ^, never larger than the region');
  t.same(size('!1000,1000', { maxWidth: 120 }), { width: 120, height: 80 }, 'nor than the limits');
  t.same(size('100,'), { width: 100, height: 67 }, '66.67 rounds to 67');
  t.same(size(',1'), { width: 2, height: 1 }, '1.5 rounds to 2');
});

t.test('size: derived dimensions are never 0 and never exceed their bound', async (t) => {
  const thin = { width: 1000, height: 1 };
  t.same(plan('full/10,/0/default.jpg', thin).size, { width: 10, height: 1 });
  t.same(plan('full/!10,10/0/default.jpg', thin).size, { width: 10, height: 1 });
  t.same(plan('full/,1/0/default.jpg', { width: 1, height: 1000 }).size, { width: 1, height: 1 });
  for (const [w, h, bw, bh] of [
    [1000, 999, 500, 499],
    [999, 1000, 499, 500],
    [7, 3, 5, 2],
    [641, 479, 256, 256],
    [479, 641, 255, 100],
  ]) {
    const { size } = plan(`full/!${bw},${bh}/0/default.jpg`, { width: w, height: h });
    t.ok(size.width <= bw && size.height <= bh && size.width >= 1 && size.height >= 1, `!${bw},${bh} of ${w}x${h}`);
    t.ok(size.width === bw || size.height === bh, 'one side touches the box');
  }
});

t.test('size refusals: upscaling without ^, zeros, floats, syntax', async (t) => {
  for (const size of ['360,', ',201', 'pct:120', '360,360', '301,100', '100,201']) {
    t.equal(refusal(`full/${size}/0/default.jpg`), 400, `${size} upscales without ^`);
  }
  for (const size of ['0,', ',0', '0,0', '!0,10', '!10,0', 'pct:0', '^pct:0', '^0,']) {
    t.equal(refusal(`full/${size}/0/default.jpg`), 400, `${size} is empty`);
  }
  for (const size of ['1.5,', ',2.0', '!1.5,2', '1e2,', '-5,', 'pct:-5', 'pct:1e2']) {
    t.equal(refusal(`full/${size}/0/default.jpg`), 400, `${size}: not an integer`);
  }
  for (const size of ['', 'full', 'Max', 'max,', '!max', '^^max', '^', ',', '!,', '!100,', '!,100', '1,2,3', 'pct:']) {
    t.equal(refusal(`full/${size}/0/default.jpg`), 400, `"${size}" is malformed`);
  }
  t.equal(refusal('full/pct:50/0/default.jpg', { width: 1, height: 1 }), 'accepted', '0.5 rounds to 1');
});

t.test('size limits', async (t) => {
  const limits = { maxWidth: 200 };
  t.equal(refusal('full/250,/0/default.jpg', IMAGE, limits), 400, 'above maxWidth');
  t.equal(refusal('full/200,/0/default.jpg', IMAGE, limits), 'accepted');
  t.equal(refusal('full/,150/0/default.jpg', IMAGE, limits), 400, '225 wide: above maxWidth');
  t.equal(refusal('full/200,200/0/default.jpg', IMAGE, limits), 'accepted', 'maxHeight defaults to maxWidth');
  t.equal(refusal('full/^300,201/0/default.jpg', IMAGE, { maxWidth: 400, maxHeight: 200 }), 400, 'above maxHeight');
  t.equal(refusal('full/200,150/0/default.jpg', IMAGE, { maxArea: 30000 }), 'accepted');
  t.equal(refusal('full/200,151/0/default.jpg', IMAGE, { maxArea: 30000 }), 400, 'above maxArea');
  t.equal(refusal('full/^max/0/default.jpg', IMAGE, { maxArea: 30000 }), 'accepted');
  t.equal(refusal('full/^pct:300/0/default.jpg', IMAGE, { maxWidth: 800 }), 400, '900 wide');
  t.same(plan('full/max/0/default.jpg', { width: 10000, height: 8000 }, { maxWidth: 3000 }).size, {
    width: 3000,
    height: 2400,
  });
});

t.test('rotation and mirroring', async (t) => {
  const rot = (r: string) => {
    const { mirror, rotation } = plan(`full/max/${r}/default.jpg`);
    return { mirror, rotation };
  };
  t.same(rot('0'), { mirror: false, rotation: 0 });
  t.same(rot('90'), { mirror: false, rotation: 90 });
  t.same(rot('180'), { mirror: false, rotation: 180 });
  t.same(rot('270'), { mirror: false, rotation: 270 });
  t.same(rot('!0'), { mirror: true, rotation: 0 });
  t.same(rot('!90'), { mirror: true, rotation: 90 });
  t.same(rot('!270'), { mirror: true, rotation: 270 });
  t.same(rot('90.0'), { mirror: false, rotation: 90 });
  t.same(rot('360'), { mirror: false, rotation: 0 }, '360 is 0');
  t.same(rot('!360'), { mirror: true, rotation: 0 });
  for (const r of ['22.5', '45', '!345', '1', '359.9', '0.5']) t.equal(refusal(`full/max/${r}/default.jpg`), 501, r);
  for (const r of ['', '361', '720', '-90', '+90', 'abc', '!!90', '90!', '9 0', '1e2', '!', 'ninety']) {
    t.equal(refusal(`full/max/${r}/default.jpg`), 400, `"${r}"`);
  }
});

t.test('quality and format', async (t) => {
  for (const quality of ['default', 'color', 'gray', 'bitonal'] as const) {
    t.equal(plan(`full/max/0/${quality}.jpg`).quality, quality);
  }
  for (const format of ['jpg', 'png', 'webp'] as const) t.equal(plan(`full/max/0/default.${format}`).format, format);
  for (const format of ['tif', 'gif', 'jp2', 'pdf']) t.equal(refusal(`full/max/0/default.${format}`), 501, format);
  for (const qf of ['default', 'default.', '.jpg', 'fancy.jpg', 'grey.jpg', 'default.JPG', 'default.bmp', 'a.b.jpg']) {
    t.equal(refusal(`full/max/0/${qf}`), 400, `"${qf}"`);
  }
});

t.test('a malformed segment is 400 before an unsupported feature is 501, which comes before the image', async (t) => {
  t.equal(refusal('nonsense/max/22.5/default.jpg'), 400);
  t.equal(refusal('full/max/22.5/default.bmp'), 400);
  t.equal(refusal('5000,5000,1,1/max/22.5/default.jpg'), 501);
  t.equal(refusal('full/600,/0/default.tif'), 501);
});

t.test('canonical forms (spec section 4.8)', async (t) => {
  const canonical = (url: string, image: ImageSize = IMAGE, limits?: ImageLimits) => plan(url, image, limits).canonical;
  t.equal(canonical('full/max/0/default.jpg'), 'full/max/0/default.jpg');
  t.equal(canonical('pct:0,0,100,100/300,200/360/default.jpg'), 'full/max/0/default.jpg');
  t.equal(canonical('0,0,5000,5000/pct:100/0/default.jpg'), 'full/max/0/default.jpg', 'clipped to the whole image');
  t.equal(canonical('square/max/0/default.jpg'), '50,0,200,200/max/0/default.jpg');
  t.equal(canonical('square/max/0/default.jpg', { width: 64, height: 64 }), 'full/max/0/default.jpg');
  t.equal(canonical('pct:41.6,7.5,40,70/90,/!270/gray.png'), '125,15,120,140/90,105/!270/gray.png');
  t.equal(canonical('full/150,/0/color.jpg'), 'full/150,100/0/color.jpg');
  t.equal(canonical('full/!225,100/90.0/bitonal.webp'), 'full/150,100/90/bitonal.webp');
  t.equal(canonical('full/^360,/0/default.jpg'), 'full/^360,240/0/default.jpg');
  t.equal(canonical('full/^max/0/default.jpg'), 'full/max/0/default.jpg', 'no limits: ^max is the region');
  t.equal(canonical('full/^max/0/default.jpg', IMAGE, { maxWidth: 360 }), 'full/^max/0/default.jpg');
  t.equal(canonical('full/^360,/0/default.jpg', IMAGE, { maxWidth: 360 }), 'full/^max/0/default.jpg');
  t.equal(canonical('full/max/0/default.jpg', IMAGE, { maxWidth: 200 }), 'full/max/0/default.jpg');
  t.equal(canonical('full/200,/0/default.jpg', IMAGE, { maxWidth: 200 }), 'full/max/0/default.jpg', 'same as max');
  t.equal(canonical('full/!1000,1000/!0/default.jpg'), 'full/max/!0/default.jpg');
  t.equal(canonical('full/^pct:100/0/default.jpg'), 'full/max/0/default.jpg');
  t.equal(canonical('full/^301,200/0/default.jpg'), 'full/^301,200/0/default.jpg', 'one side upscaled');
  // Tiles of a 6000x4000 image, as a viewer asks for them from info.json's tiles.
  const big = { width: 6000, height: 4000 };
  t.equal(canonical('0,0,1024,1024/256,/0/default.jpg', big), '0,0,1024,1024/256,256/0/default.jpg');
  t.equal(canonical('5120,3072,880,928/220,/0/default.jpg', big), '5120,3072,880,928/220,232/0/default.jpg');
  t.equal(canonical('5120,3072,1024,1024/256,/0/default.jpg', big), '5120,3072,880,928/256,270/0/default.jpg');
});

t.test('errors are ImageRequestError with a status and a message', async (t) => {
  const error = t.throws(() => plan('full/max/45/default.jpg'));
  t.type(error, ImageRequestError);
  t.type(error, Error);
  t.match(error, { status: 501, name: 'ImageRequestError', message: /45/ });
});
