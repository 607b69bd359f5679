/**
 * Typed arrays lent for a while and given back, to be written over by the next borrower: a page's
 * largest arrays (the detector's input, 12 MB at a 1,216 px side, and the page it is made from,
 * despeckled) cost more to write in memory fresh from the system than in memory written before.
 * Each spare is as long as the longest array it held; one lent is in no other hands until it is
 * given back.
 */
interface TypedArrayKind<T> {
  new (length: number): T;
  new (buffer: ArrayBufferLike): T;
}

/** Spares kept at most: pages are read one at a time, a few at once only where several are read side by side. */
const MOST_KEPT = 2;

export class Spares<T extends Float32Array | Uint8Array> {
  private readonly kept: T[] = [];

  constructor(private readonly kind: TypedArrayKind<T>) {}

  /** An array `length` long, a spare one where one is long enough: it holds what it held, for the borrower to write over. */
  lend(length: number): T {
    const spare = this.kept.pop();
    return (spare && spare.length >= length ? spare : new this.kind(length)).subarray(0, length) as T;
  }

  /** Takes `array` back (one lent by `lend`) once it will no longer be read. */
  giveBack(array: ArrayBufferView): void {
    const whole = new this.kind(array.buffer);
    if (this.kept.length < MOST_KEPT && !this.kept.some((spare) => spare.buffer === whole.buffer)) this.kept.push(whole);
  }
}
