declare module 'bmp-js' {
  /** Pixels in ABGR order, 4 bytes each. */
  export function decode(buffer: Buffer): { width: number; height: number; data: Buffer };
  const bmp: { decode: typeof decode };
  export default bmp;
}
