/**
 * models/manifest.json: the models recommended per deployment profile, with the publisher's
 * sha256 where it is known. Where it is not (it cannot be read offline), the models tool records
 * the hash of what it downloaded on the connected machine in MODELS_DIR/SHA256SUMS; the bundle
 * carries that file into the air-gapped site (trust.ts says how the two are weighed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
const SHA256_HEX = /^[0-9a-f]{64}$/;

const modelEntry = z.object({
  id: z.string().min(1),
  engine: z.enum(['llm', 'asr', 'ocr']),
  /** The file name in MODELS_DIR: no folders, nothing a shell or tar would read specially. */
  file: z.string().regex(/^[\w][\w.+-]*$/, 'a plain file name'),
  /** The publisher's download; null for a file that is made, not downloaded (the random-weight test models). */
  url: z.url({ protocol: /^https?$/ }).nullable(),
  bytes: z.number().int().positive().nullable(),
  sha256: z.string().regex(SHA256_HEX).nullable(),
  licence: z.string().min(1),
  note: z.string().optional(),
});
export type ModelEntry = z.infer<typeof modelEntry>;

const manifestSchema = z
  .object({
    schema: z.literal(1),
    profiles: z.record(z.string(), z.array(z.string()).min(1)),
    models: z.array(modelEntry).min(1),
  })
  .superRefine((manifest, context) => {
    const ids = new Set(manifest.models.map((m) => m.id));
    for (const [profile, members] of Object.entries(manifest.profiles)) {
      for (const id of members) {
        if (!ids.has(id)) context.addIssue({ code: 'custom', path: ['profiles', profile], message: `unknown model id ${id}` });
      }
    }
  });
export type Manifest = z.infer<typeof manifestSchema>;

export async function loadManifest(path: string): Promise<Manifest> {
  const parsed = manifestSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${path}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

export function profileModels(manifest: Manifest, profile: string): ModelEntry[] {
  const ids = manifest.profiles[profile];
  if (!ids) throw new Error(`unknown profile ${profile}; the manifest has: ${Object.keys(manifest.profiles).join(', ')}`);
  return ids.map((id) => manifest.models.find((m) => m.id === id)!);
}

/**
 * The hash the manifest at `path` gives `file`, read leniently: the gateway must start (and say
 * why an engine cannot) even when the manifest is missing or damaged.
 */
export function manifestHashOf(path: string, file: string): string | undefined {
  try {
    const manifest = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { models?: unknown }) : {};
    const models = Array.isArray(manifest.models) ? (manifest.models as Array<{ file?: unknown; sha256?: unknown }>) : [];
    const sha256 = models.find((model) => model.file === file)?.sha256;
    return typeof sha256 === 'string' ? sha256 : undefined;
  } catch {
    return undefined;
  }
}
