import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATIONS } from '../../src/contract/operations.js';
import { fromJsonSchema } from './contract-fuzz.js';

describe('contract fuzzing: bodies generated from the request schemas', () => {
  it.each(Object.values(OPERATIONS))('$path: every generated body is one the contract accepts, but for its rules across fields', (op) => {
    const schema = z.toJSONSchema(op.request, { io: 'input' }) as Parameters<typeof fromJsonSchema>[0];
    fc.assert(
      fc.property(fromJsonSchema(schema), (body) => {
        const result = op.request.safeParse(body);
        // Rules across fields (unique point seq, end_ms ≥ start_ms) are the contract's refinements,
        // which JSON Schema cannot say: only they may refuse a generated body.
        const onlyRefinements = result.error?.issues.every((issue) => issue.code === 'custom') ?? true;
        expect(onlyRefinements, JSON.stringify(result.error?.issues)).toBe(true);
      }),
      { seed: 17, numRuns: 200 },
    );
  });
});
