import { getLlama, LlamaLogLevel, type GbnfJsonSchema, type Llama } from 'node-llama-cpp';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { grammarSchemaFor, toGrammarSchema } from '../../../src/engines/llm/json-schema.js';

/** A schema with most of what zod 4 writes into JSON Schema. */
const wide = z.object({
  title: z.string().min(1).max(20),
  count: z.number().int().min(0).max(5),
  note: z.string().nullable(),
  kind: z.enum(['x', 'y']).optional(),
  contacts: z.array(z.object({ k: z.literal('q'), mail: z.email() })).max(3),
  either: z.union([z.string(), z.number()]),
  scores: z.record(z.string(), z.number()),
  anything: z.unknown(),
  at: z.iso.datetime(),
  day: z.iso.date(),
  clock: z.iso.time(),
  code: z.string().regex(/^a+$/),
  pair: z.tuple([z.string(), z.number()]),
  both: z.object({ x: z.string() }).and(z.object({ y: z.number() })),
  positive: z.number().positive(),
  withDefault: z.string().default('d'),
  shape: z.discriminatedUnion('t', [z.object({ t: z.literal('a'), a: z.string() }), z.object({ t: z.literal('b') })]),
  maybe: z.object({ v: z.boolean() }).nullable(),
});

const wideValue: z.input<typeof wide> = {
  title: 'T',
  count: 2,
  note: null,
  kind: 'x',
  contacts: [{ k: 'q', mail: 'a@b.cn' }],
  either: 3,
  scores: { a: 1 },
  anything: { deep: [1, 'two', null] },
  at: '2024-01-02T03:04:05Z',
  day: '2024-01-02',
  clock: '03:04:05',
  code: 'aaa',
  pair: ['p', 1],
  both: { x: 'x', y: 1 },
  positive: 1.5,
  withDefault: 'd',
  shape: { t: 'a', a: 'z' },
  maybe: { v: true },
};

describe('grammar schema for zod schemas', () => {
  let llama: Llama;
  beforeAll(async () => {
    llama = await getLlama({ build: 'never', usePrebuiltBinaries: true, progressLogs: false, logLevel: LlamaLogLevel.error, gpu: false });
  });

  it('keeps only what node-llama-cpp understands', () => {
    const schema = grammarSchemaFor(wide) as { properties: Record<string, Record<string, unknown>> };
    const p = schema.properties;
    expect(JSON.stringify(schema)).not.toMatch(/"\$schema"|"anyOf"|"allOf"|"pattern"|"minimum"|"maximum"|"exclusiveMinimum"|"default"|"propertyNames"|"required"/);
    expect(p.title).toEqual({ type: 'string', minLength: 1, maxLength: 20 });
    expect(p.count).toEqual({ type: 'integer' });
    expect(p.note).toEqual({ type: ['string', 'null'] });
    expect(p.kind).toEqual({ enum: ['x', 'y'] });
    expect(p.mail).toBeUndefined();
    expect((p.contacts as { items: { properties: Record<string, unknown> } }).items.properties.mail).toEqual({ type: 'string' });
    expect(p.at).toEqual({ type: 'string', format: 'date-time' });
    expect(p.day).toEqual({ type: 'string', format: 'date' });
    expect(p.clock).toEqual({ type: 'string' }); // node-llama-cpp's "time" demands an offset zod rejects
    expect(p.pair).toEqual({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2, maxItems: 2 });
    expect(p.both).toEqual({ type: 'object', properties: { x: { type: 'string' }, y: { type: 'number' } } });
    expect(p.anything).toHaveProperty('oneOf');
    expect(p.scores).toEqual({ type: 'object', additionalProperties: { type: 'number' } });
    expect((p.maybe as { oneOf: unknown[] }).oneOf).toHaveLength(2);
  });

  it('compiles into a grammar that admits a value the zod schema accepts', async () => {
    const grammar = await llama.createGrammarForJsonSchema<GbnfJsonSchema>(grammarSchemaFor(wide) as GbnfJsonSchema);
    expect(wide.safeParse(wideValue).success).toBe(true);
    expect(() => grammar.parse(JSON.stringify(wideValue))).not.toThrow();
  });

  it('handles recursive schemas through $defs', async () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.object({ name: z.string(), children: z.array(z.lazy(() => node)) });
    const schema = grammarSchemaFor(node);
    expect(JSON.stringify(schema)).toContain('#/$defs/');
    const grammar = await llama.createGrammarForJsonSchema<GbnfJsonSchema>(schema as GbnfJsonSchema);
    expect(() => grammar.parse(JSON.stringify({ name: 'a', children: [{ name: 'b', children: [] }] }))).not.toThrow();
  });

  it('rewrites refs it cannot follow and roots that cannot carry $defs', () => {
    expect(toGrammarSchema({ $ref: 'http://elsewhere/schema' })).toHaveProperty('oneOf');
    expect(toGrammarSchema({ type: 'string', $defs: { a: { type: 'number' } } })).toEqual({
      oneOf: [{ type: 'string' }],
      $defs: { a: { type: 'number' } },
    });
    expect(toGrammarSchema({})).toHaveProperty('oneOf');
  });

  it('drops bounds too large for llama.cpp, so the grammar still compiles', async () => {
    const big = z.object({
      essay: z.string().min(8000).max(8000),
      long: z.string().max(2000),
      short: z.string().max(1000),
      many: z.array(z.number()).min(1).max(1999),
      some: z.array(z.object({ a: z.string() })).max(400),
      map: z.record(z.string(), z.number()).refine((m) => Object.keys(m).length < 5000),
    });
    const schema = grammarSchemaFor(big) as { properties: Record<string, unknown> };
    expect(schema.properties.essay).toEqual({ type: 'string' });
    expect(schema.properties.long).toEqual({ type: 'string' });
    expect(schema.properties.short).toEqual({ type: 'string', maxLength: 1000 });
    expect(schema.properties.many).toEqual({ type: 'array', items: { type: 'number' }, minItems: 1 });
    expect(schema.properties.some).toMatchObject({ maxItems: 400 });
    await expect(llama.createGrammarForJsonSchema<GbnfJsonSchema>(schema as GbnfJsonSchema)).resolves.toBeDefined();
  });

  it('computes a schema once', () => {
    expect(grammarSchemaFor(wide)).toBe(grammarSchemaFor(wide));
  });
});
