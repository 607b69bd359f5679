/**
 * A page lit evenly: each pixel divided by the page's own blurred brightness, so paper reads
 * white wherever it lies (in a photo's shadow, beside a white patch, on a desk) and text dark.
 * Both readers see pages so: the PP-OCR detector (a photo darkened to a third on one side read 4
 * → 7 of 7 identifiers), and tesseract, whose one global threshold otherwise takes a photo's
 * grey paper beside anything whiter (a turned page's corners, whitened paint) for ink: it read
 * 2 words of a legible straightened photo, 306 once evenly lit.
 */
import sharp from 'sharp';

/** The blur that estimates the page's brightness, as a share of its longest side. */
const FLAT_FIELD_SIGMA = 1 / 96;
/** Backgrounds darker than this are not brightened further (a black margin stays black). */
const DARKEST_BACKGROUND = 32;

/** The gain of a pixel whose blurred brightness is the index: paper of any grey made white. */
export const EVEN_GAIN = Float64Array.from({ length: 256 }, (_, background) => 255 / Math.max(DARKEST_BACKGROUND, background));

/** The blurred brightness of a grey page (one byte a pixel, row by row): what lightEvenly divides by. */
export function greyBrightness(grey: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(grey, { raw: { width, height, channels: 1 } })
    .greyscale()
    .blur(Math.max(width, height) * FLAT_FIELD_SIGMA)
    .raw()
    .toBuffer();
}

/** `pixels` (`channels` bytes each, row by row) divided by their blurred brightness, in place. */
export async function lightEvenly(pixels: Uint8Array, width: number, height: number, channels: 1 | 3): Promise<void> {
  const background = await greyBrightness(channels === 1 ? pixels : greyOfRgb(pixels), width, height);
  for (let i = 0; i < width * height; i++) {
    const gain = EVEN_GAIN[background[i]!]!;
    for (let c = 0; c < channels; c++) pixels[i * channels + c] = Math.min(255, pixels[i * channels + c]! * gain);
  }
}

/** Each RGB pixel's grey (see srgbGrey). */
function greyOfRgb(rgb: Uint8Array): Uint8Array {
  const grey = new Uint8Array(rgb.length / 3);
  for (let i = 0, p = 0; i < grey.length; i++, p += 3) grey[i] = srgbGrey(rgb[p]!, rgb[p + 1]!, rgb[p + 2]!);
  return grey;
}

const f32 = Math.fround;

/** C's rint: to the nearest integer, halves to even. */
function roundHalfEven(value: number): number {
  const rounded = Math.round(value);
  return rounded - value === 0.5 && rounded % 2 !== 0 ? rounded - 1 : rounded;
}

/**
 * Each sRGB byte's linear light times its channel's weight in luminance (R, G, B), in single
 * precision. The detector's despeckle (ppocr/despeckle.wat) takes its greys from these tables and
 * SRGB_OF_LINEAR with the same operations, so they are srgbGrey's.
 */
export const WEIGHTED_LINEAR = [0.2126, 0.7152, 0.0722].map((weight) =>
  Float32Array.from({ length: 256 }, (_, value) => {
    const v = f32(value / 255);
    const linear = v <= 0.04045 ? f32(v / f32(12.92)) : f32(Math.pow(f32(f32(v + f32(0.055)) / f32(1.055)), f32(2.4)));
    return f32(weight) * linear;
  }),
) as [Float32Array, Float32Array, Float32Array];
const [RED_LINEAR, GREEN_LINEAR, BLUE_LINEAR] = WEIGHTED_LINEAR;

/** Linear light (0–255 in steps of one) back to sRGB bytes, with one entry past the end to interpolate against. */
export const SRGB_OF_LINEAR = Int32Array.from({ length: 257 }, (_, index) => {
  const y = f32(Math.min(index, 255) / 255);
  return roundHalfEven(255 * f32(y <= 0.0031308 ? 12.92 * y : 1.055 * Math.pow(y, 1 / 2.4) - 0.055));
});

/** Pixels whose three channels are equal keep their grey. */
const EQUAL_GREY = Uint8Array.from({ length: 256 }, (_, value) => greyOfLinear(value, value, value));

/**
 * The grey of an sRGB pixel, bit for bit as libvips' (sharp's `greyscale()`) gives it: luminance
 * in linear light, in single precision, back to sRGB by its 8-bit table. So a page whose grey is
 * taken here, in the pass that already reads its pixels, is lit as it was when sharp took it.
 */
export function srgbGrey(r: number, g: number, b: number): number {
  if (r === g && g === b) return EQUAL_GREY[r]!;
  const colour = (r << 16) | (g << 8) | b;
  const slot = Math.imul(colour, 0x9e3779b1) >>> (32 - GREY_CACHE_BITS);
  if (greyCacheColours[slot] !== colour) {
    greyCacheColours[slot] = colour;
    greyCache[slot] = greyOfLinear(r, g, b);
  }
  return greyCache[slot]!;
}

/**
 * Colours' greys, each kept in a slot its colour hashes to: a photo's neighbouring pixels repeat
 * their colours (nearly every lookup on a phone photo finds its own), and working one out costs
 * a dozen float operations.
 */
const GREY_CACHE_BITS = 16;
const greyCacheColours = new Int32Array(1 << GREY_CACHE_BITS).fill(-1);
const greyCache = new Uint8Array(1 << GREY_CACHE_BITS);

function greyOfLinear(r: number, g: number, b: number): number {
  const scaled = Math.min(255, Math.max(0, f32(f32(f32(RED_LINEAR[r]! + GREEN_LINEAR[g]!) + BLUE_LINEAR[b]!) * 255)));
  const index = scaled | 0;
  const low = SRGB_OF_LINEAR[index]!;
  return roundHalfEven(f32(low + f32((SRGB_OF_LINEAR[index + 1]! - low) * f32(scaled - index))));
}
