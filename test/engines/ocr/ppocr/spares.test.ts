import { describe, expect, it } from 'vitest';
import { Spares } from '../../../../src/engines/ocr/ppocr/spares.js';

describe('spare arrays', () => {
  it('lends one given back, as long as asked, and a new one while it is out', () => {
    const spares = new Spares(Float32Array);
    const first = spares.lend(100);
    expect(first.length).toBe(100);
    expect(spares.lend(100).buffer).not.toBe(first.buffer);
    spares.giveBack(first);
    const again = spares.lend(60);
    expect(again.buffer).toBe(first.buffer);
    expect(again.length).toBe(60);
  });

  it('lends one given back twice only once, and a longer one than any spare anew', () => {
    const spares = new Spares(Uint8Array);
    const first = spares.lend(10);
    spares.giveBack(first);
    spares.giveBack(first);
    expect(spares.lend(10).buffer).toBe(first.buffer);
    expect(spares.lend(10).buffer).not.toBe(first.buffer);
    spares.giveBack(first);
    const longer = spares.lend(20);
    expect(longer.buffer).not.toBe(first.buffer);
    expect(longer.length).toBe(20);
  });
});
