/**
 * From a zod schema to the JSON schema subset node-llama-cpp turns into a grammar.
 *
 * node-llama-cpp 3.x (`GbnfJsonSchema`, utils/gbnfJson) understands:
 *   - `type` string | number | integer | boolean | null (or an array of these), `const`, `enum`;
 *   - strings: `minLength`, `maxLength`, `format` "date" | "time" | "date-time";
 *   - objects: `properties`, `additionalProperties` (absent means false), `minProperties`,
 *     `maxProperties`; every listed property is always generated (`required` is ignored);
 *   - arrays: `items`, `prefixItems`, `minItems`, `maxItems`;
 *   - `oneOf`, `$ref` of the form `#/$defs/<name>`, and `$defs` on objects, arrays, oneOf and refs.
 *
 * What zod 4's `z.toJSONSchema` writes beyond that is rewritten or dropped here:
 *   - `anyOf` becomes `oneOf` (the grammar only needs "one of these shapes"); `allOf` of objects
 *     is merged, other `allOf`s keep their first member;
 *   - a `type` array naming object or array becomes a `oneOf`;
 *   - `{}` / `true` (z.unknown(), z.any(), unrepresentable types) become "any JSON value"
 *     (node-llama-cpp would read them as `null` only);
 *   - `format` other than "date" / "date-time" is dropped: an unknown format makes node-llama-cpp
 *     allow only the empty string, and its "time" grammar demands a UTC offset that zod's
 *     `z.iso.time()` rejects;
 *   - `pattern`, `minimum`/`maximum`/`exclusive*`, `multipleOf`, `propertyNames`, `default`,
 *     `title`, `description`, `examples`, `$schema`, `$id` are dropped;
 *   - a tuple's `items: false` becomes `maxItems` = the number of `prefixItems`;
 *   - length and count bounds too large for llama.cpp's grammar parser are dropped (the grammar
 *     then leaves that length open; maxTokens still bounds the output). llama.cpp refuses a
 *     repetition `{m,n}` when (rules in the repeated group × n) exceeds 2000
 *     (MAX_REPETITION_THRESHOLD), and a refused grammar would fail every call. node-llama-cpp
 *     repeats up to 2 rules for a string character and up to about 4 for an array item or
 *     object property with its separator, so strings keep bounds up to 1000 characters, arrays
 *     and objects up to 400 items or properties;
 *   - `$ref: "#"` (a recursive root) points at a copy of the root under `$defs`.
 *
 * What is dropped is not lost: the caller re-validates the parsed output with the zod schema,
 * which enforces every constraint, so the grammar only has to make a valid answer reachable.
 */
import { z } from 'zod';

type JsonObject = Record<string, unknown>;

const ROOT_DEF = '__root';
const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const GRAMMAR_FORMATS = new Set(['date', 'date-time']);

/** Any JSON value, spelled in the subset (an array without `items` takes any JSON items). */
const ANY_JSON: JsonObject = Object.freeze({
  oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }],
});

/** Largest string length bound kept: 2 rules × 1000 stays within llama.cpp's 2000. */
const MAX_LENGTH_BOUND = 1_000;
/** Largest item / property count bound kept: separator, key and value rules × 400 stays within 2000. */
const MAX_COUNT_BOUND = 400;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const copyBound = (from: JsonObject, to: JsonObject, key: string, max: number) => {
  const value = from[key];
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max) to[key] = value;
};

function refTarget(ref: string): string | undefined {
  if (ref === '#') return ROOT_DEF;
  for (const prefix of ['#/$defs/', '#/definitions/']) {
    if (ref.startsWith(prefix) && ref.length > prefix.length) return ref.slice(prefix.length);
  }
  return undefined;
}

function mergeObjects(members: JsonObject[]): JsonObject {
  const merged: JsonObject = { type: 'object', properties: {} };
  for (const member of members) {
    Object.assign(merged.properties as JsonObject, isObject(member.properties) ? member.properties : {});
    if (member.additionalProperties !== undefined && member.additionalProperties !== false) {
      merged.additionalProperties = member.additionalProperties;
    }
  }
  return merged;
}

function sanitizeNode(node: unknown, defNames: ReadonlySet<string>): JsonObject {
  if (!isObject(node)) return { ...ANY_JSON }; // `true`, or something that is not a schema
  if (typeof node.$ref === 'string') {
    const target = refTarget(node.$ref);
    return target !== undefined && defNames.has(target) ? { $ref: `#/$defs/${target}` } : { ...ANY_JSON };
  }
  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives) {
    const options = alternatives.map((option) => sanitizeNode(option, defNames));
    return options.length === 1 ? options[0]! : { oneOf: options };
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    const members = node.allOf.filter(isObject);
    if (members.length > 1 && members.every((member) => member.type === 'object')) {
      return sanitizeNode(mergeObjects(members), defNames);
    }
    return sanitizeNode(members[0], defNames);
  }
  if (node.const !== undefined) return { const: node.const };
  if (Array.isArray(node.enum)) return { enum: node.enum };

  const type = node.type;
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    if (types.every((t) => PRIMITIVE_TYPES.has(t))) {
      return types.length === 1 ? sanitizeNode({ ...node, type: types[0] }, defNames) : { type: types };
    }
    return { oneOf: types.map((t) => sanitizeNode({ ...node, type: t }, defNames)) };
  }
  switch (type) {
    case 'string': {
      if (typeof node.format === 'string' && GRAMMAR_FORMATS.has(node.format)) return { type, format: node.format };
      const out: JsonObject = { type };
      copyBound(node, out, 'minLength', MAX_LENGTH_BOUND);
      copyBound(node, out, 'maxLength', MAX_LENGTH_BOUND);
      return out;
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type };
    case 'object': {
      const out: JsonObject = { type };
      if (isObject(node.properties)) {
        out.properties = Object.fromEntries(
          Object.entries(node.properties).map(([key, value]) => [key, sanitizeNode(value, defNames)]),
        );
      }
      const additional = node.additionalProperties;
      if (additional === true) out.additionalProperties = true;
      else if (isObject(additional)) out.additionalProperties = sanitizeNode(additional, defNames);
      else if (additional === undefined && node.properties === undefined) out.additionalProperties = true; // z.object({}).passthrough(), records without a value schema
      copyBound(node, out, 'minProperties', MAX_COUNT_BOUND);
      copyBound(node, out, 'maxProperties', MAX_COUNT_BOUND);
      return out;
    }
    case 'array': {
      const out: JsonObject = { type };
      const prefixItems = Array.isArray(node.prefixItems) ? node.prefixItems : undefined;
      if (prefixItems) out.prefixItems = prefixItems.map((item) => sanitizeNode(item, defNames));
      if (isObject(node.items) || node.items === true) out.items = sanitizeNode(node.items, defNames);
      copyBound(node, out, 'minItems', MAX_COUNT_BOUND);
      copyBound(node, out, 'maxItems', MAX_COUNT_BOUND);
      if (node.items === false && prefixItems) out.maxItems = prefixItems.length;
      return out;
    }
    default:
      return { ...ANY_JSON };
  }
}

/**
 * Rewrites a JSON schema (as zod 4 writes it) into the subset node-llama-cpp's grammar builder
 * understands; see this module's comment for the rules.
 */
export function toGrammarSchema(jsonSchema: JsonObject): JsonObject {
  const rawDefs: JsonObject = {
    ...(isObject(jsonSchema.definitions) ? jsonSchema.definitions : {}),
    ...(isObject(jsonSchema.$defs) ? jsonSchema.$defs : {}),
  };
  const root: JsonObject = { ...jsonSchema };
  delete root.$defs;
  delete root.definitions;
  delete root.$schema;
  delete root.$id;
  const usesRootRef = JSON.stringify(jsonSchema).includes('"$ref":"#"');
  if (usesRootRef) rawDefs[ROOT_DEF] = root;
  const defNames = new Set(Object.keys(rawDefs));
  const defs = Object.fromEntries(Object.entries(rawDefs).map(([name, def]) => [name, sanitizeNode(def, defNames)]));
  if (usesRootRef) return { $defs: defs, $ref: `#/$defs/${ROOT_DEF}` };
  const sanitized = sanitizeNode(root, defNames);
  if (defNames.size === 0) return sanitized;
  // node-llama-cpp reads $defs on objects, arrays, oneOf and $ref schemas; wrap any other root.
  const carriesDefs = sanitized.type === 'object' || sanitized.type === 'array' || 'oneOf' in sanitized || '$ref' in sanitized;
  return carriesDefs ? { ...sanitized, $defs: defs } : { oneOf: [sanitized], $defs: defs };
}

const cache = new WeakMap<z.ZodType, JsonObject>();

/**
 * The grammar schema of a zod schema, computed once per schema object. It describes what the
 * schema accepts as input (`io: 'input'`), since the model's output is what zod will parse.
 */
export function grammarSchemaFor(schema: z.ZodType): JsonObject {
  let grammar = cache.get(schema);
  if (!grammar) {
    const jsonSchema = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonObject;
    grammar = toGrammarSchema(jsonSchema);
    cache.set(schema, grammar);
  }
  return grammar;
}

/**
 * The grammar schema rewritten for an OpenAI-compatible server's `response_format` (strict
 * mode, as OpenAI, vLLM, llama-server and Ollama read it): `oneOf` becomes `anyOf` (the only
 * alternative strict mode allows), and every object lists all its properties as `required`
 * and says `additionalProperties: false` unless it allows more — node-llama-cpp's grammar
 * always generates every property and reads an absent `additionalProperties` as false, while
 * JSON Schema reads both the other way.
 */
export function responseFormatSchemaFor(schema: z.ZodType): JsonObject {
  let strict = strictCache.get(schema);
  if (!strict) {
    strict = toStrictSchema(grammarSchemaFor(schema)) as JsonObject;
    strictCache.set(schema, strict);
  }
  return strict;
}

const strictCache = new WeakMap<z.ZodType, JsonObject>();

function toStrictSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toStrictSchema);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    // `const` and `enum` hold values, not schemas.
    out[key === 'oneOf' ? 'anyOf' : key] = key === 'const' || key === 'enum' ? value : toStrictSchema(value);
  }
  if (node.type === 'object') {
    if (isObject(node.properties)) out.required = Object.keys(node.properties);
    if (out.additionalProperties === undefined) out.additionalProperties = false;
  }
  return out;
}
