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

/** The blurred brightness of `pixels` (`channels` bytes each, row by row), one byte a pixel: what lightEvenly divides by. */
export function pageBrightness(pixels: Uint8Array, width: number, height: number, channels: 1 | 3): Promise<Buffer> {
  return sharp(pixels, { raw: { width, height, channels } })
    .greyscale()
    .blur(Math.max(width, height) * FLAT_FIELD_SIGMA)
    .raw()
    .toBuffer();
}

/** `pixels` (`channels` bytes each, row by row) divided by their blurred brightness, in place. */
export async function lightEvenly(pixels: Uint8Array, width: number, height: number, channels: 1 | 3): Promise<void> {
  const background = await pageBrightness(pixels, width, height, channels);
  for (let i = 0; i < width * height; i++) {
    const gain = EVEN_GAIN[background[i]!]!;
    for (let c = 0; c < channels; c++) pixels[i * channels + c] = Math.min(255, pixels[i * channels + c]! * gain);
  }
}
