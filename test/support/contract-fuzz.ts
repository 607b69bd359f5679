/**
 * Arbitraries for contract fuzzing: request bodies made from a valid request (the contract's
 * example, or one generated from the request schema) by hostile mutations, and raw bodies that
 * are not JSON at all. Every string the
 * fuzzer plants carries ECHO_MARKER, so an answer that quotes the request can be told.
 */
import fc from 'fast-check';

export const ECHO_MARKER = 'ZQXJ';

/** How many runs and how long per route: small in the suite, large under `npm run fuzz`. */
export const FUZZ = {
  seed: Number(process.env.FUZZ_SEED ?? 17),
  runs: Number(process.env.FUZZ_RUNS ?? 250),
  routeMs: Number(process.env.FUZZ_ROUTE_SECONDS ?? 4) * 1000,
};

const DEEP = 50_000;
const MIB = 1024 * 1024;

/** Values of the wrong type, out of range, or built to hurt a parser or a log. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, -1e308, 1e308, Number.MAX_SAFE_INTEGER + 2, 0.5, -0.0, [], {}),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(
    `${ECHO_MARKER}\u0000nul`,
    `${ECHO_MARKER}\u202Ertl\u200F`,
    `${ECHO_MARKER}\uD800lone`,
    `\uDC00${ECHO_MARKER}`,
    `${ECHO_MARKER}<script>alert(1)</script>`,
    `${ECHO_MARKER}'; DROP TABLE artifacts; --`,
    `${ECHO_MARKER}\r\nSet-Cookie: x=1`,
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `${ECHO_MARKER}${s}`),
  fc.constant(`${ECHO_MARKER}${'長'.repeat(MIB / 3)}`),
  // An own key named __proto__, as JSON.parse makes it (an object literal would set the prototype).
  fc.constant(JSON.parse(`{"__proto__": {"polluted": "${ECHO_MARKER}"}}`) as unknown),
  fc.constant({ constructor: { prototype: { polluted: ECHO_MARKER } } }),
  fc.constant('__DEEP__'),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
);

type Json = Record<string, unknown> | unknown[];

/** Every path to a value inside `value` (the root included, as []). */
function pathsOf(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return [path, ...value.flatMap((item, i) => pathsOf(item, [...path, i]))];
  if (value !== null && typeof value === 'object') {
    return [path, ...Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...path, key]))];
  }
  return [path];
}

type Mutation = { op: 'replace'; value: unknown } | { op: 'delete' } | { op: 'extra'; key: string; value: unknown };

function mutate(base: Json, path: Array<string | number>, mutation: Mutation): unknown {
  const copy = structuredClone(base) as Json;
  if (path.length === 0) return mutation.op === 'replace' ? mutation.value : copy;
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], copy) as Record<
    string | number,
    unknown
  >;
  const last = path.at(-1)!;
  if (mutation.op === 'replace') parent[last] = mutation.value;
  else if (mutation.op === 'delete') delete parent[last];
  else {
    const target = parent[last];
    if (target !== null && typeof target === 'object') Object.defineProperty(target, mutation.key, { value: mutation.value, enumerable: true });
    else parent[last] = { [mutation.key]: mutation.value };
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: hostileValue.map((value) => ({ op: 'replace' as const, value })) },
  { weight: 2, arbitrary: fc.constant({ op: 'delete' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra_field', `${ECHO_MARKER}key`), hostileValue)
      .map(([key, value]) => ({ op: 'extra' as const, key, value })),
  },
);

/** The JSON text of `value`, with the `"__DEEP__"` placeholder replaced by arrays nested DEEP levels. */
function serialise(value: unknown): string {
  return JSON.stringify(value).replaceAll('"__DEEP__"', `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`);
}

/** A JSON Schema node, as zod's toJSONSchema writes the contract's request schemas. */
interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  anyOf?: SchemaNode[];
}

/** Generation stays small: the limits themselves are probed by the hostile values. */
const MOST_ITEMS = 4;
const MOST_CHARS = 40;

/** Values the schema accepts, drawn from its JSON Schema: every required field, any optional ones, sizes within its bounds. */
export function fromJsonSchema(node: SchemaNode): fc.Arbitrary<unknown> {
  if (node.anyOf) return fc.oneof(...node.anyOf.map(fromJsonSchema));
  if (node.enum) return fc.constantFrom(...node.enum);
  switch (node.type) {
    case 'object': {
      const properties = Object.entries(node.properties ?? {}).map(([key, value]) => [key, fromJsonSchema(value)] as const);
      return fc.record(Object.fromEntries(properties), { requiredKeys: node.required ?? [] });
    }
    case 'array': {
      const minLength = node.minItems ?? 0;
      return fc.array(fromJsonSchema(node.items ?? {}), { minLength, maxLength: Math.max(minLength, Math.min(node.maxItems ?? MOST_ITEMS, MOST_ITEMS)) });
    }
    case 'string': {
      const minLength = node.minLength ?? 0;
      return fc.string({ unit: 'grapheme', minLength, maxLength: Math.max(minLength, Math.min(node.maxLength ?? MOST_CHARS, MOST_CHARS)) });
    }
    case 'integer':
      return fc.integer({ min: Math.max(node.minimum ?? -(2 ** 31), -(2 ** 31)), max: Math.min(node.maximum ?? 2 ** 31, 2 ** 31) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, ...(node.minimum === undefined ? {} : { min: node.minimum }), ...(node.maximum === undefined ? {} : { max: node.maximum }) });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Bodies for a route: one to three mutations of a valid request (the contract's example, or one
 * generated from the request's JSON Schema), random JSON, or bytes that are not JSON.
 */
export function hostileBodies(example: Json, schema: SchemaNode): fc.Arbitrary<string | Buffer> {
  const valid = fc.oneof(fc.constant(example), fromJsonSchema(schema) as fc.Arbitrary<Json>);
  const mutated = valid.chain((base) =>
    fc
      .array(fc.tuple(fc.constantFrom(...pathsOf(base)), mutation), { minLength: 1, maxLength: 3 })
      .map((steps) => serialise(steps.reduce<unknown>((body, [path, step]) => mutateSafely(body, path, step), base))),
  );
  return fc.oneof(
    { weight: 8, arbitrary: mutated },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => serialise(value)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  );
}

/** A later mutation's path may be gone after an earlier one: then it is skipped. */
function mutateSafely(body: unknown, path: Array<string | number>, step: Mutation): unknown {
  if (body === null || typeof body !== 'object') return body;
  try {
    return mutate(body as Json, path, step);
  } catch {
    return body;
  }
}
