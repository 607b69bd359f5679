/**
 * models/manifest.json: the models recommended per deployment profile, and the checksums that
 * vouch for the files in MODELS_DIR.
 *
 * Trust: a manifest entry's `sha256` is the publisher's hash when it is known. Where it is not
 * (it cannot be read from here, offline), `models:fetch` records the hash of what it downloaded
 * on the connected machine in MODELS_DIR/SHA256SUMS; the bundle carries that file into the
 * air-gapped site, and `models:install` and `models:verify` check every byte against it.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CHECKSUMS_FILE, parseChecksums } from '../../src/engines/model-trust.js';

export { CHECKSUMS_FILE };
/** The same streamed sha256 the gateway computes for the models it loads. */
export { hashFile as sha256OfFile } from '../../src/engines/model-version.js';
const SHA256_HEX = /^[0-9a-f]{64}$/;

const modelEntry = z.object({
  id: z.string().min(1),
  engine: z.enum(['llm', 'asr', 'ocr']),
  /** The file name in MODELS_DIR: no folders, nothing a shell or tar would read specially. */
  file: z.string().regex(/^[\w][\w.+-]*$/, 'a plain file name'),
  url: z.url({ protocol: /^https?$/ }),
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

export async function readChecksums(dir: string): Promise<Map<string, string>> {
  try {
    return parseChecksums(await readFile(join(dir, CHECKSUMS_FILE), 'utf8'));
  } catch {
    return new Map();
  }
}

export async function writeChecksums(dir: string, sums: Map<string, string>): Promise<void> {
  const lines = [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([file, sha256]) => `${sha256}  ${file}\n`);
  const temporary = join(dir, `${CHECKSUMS_FILE}.tmp`);
  await writeFile(temporary, lines.join(''));
  await rename(temporary, join(dir, CHECKSUMS_FILE));
}

/** The hash a file must have: the manifest's when known, else the one recorded at download. */
export function expectedHash(entry: ModelEntry | undefined, file: string, recorded: Map<string, string>): string | undefined {
  const fromManifest = entry?.sha256 ?? undefined;
  const fromRecord = recorded.get(file);
  if (fromManifest && fromRecord && fromManifest !== fromRecord) {
    throw new Error(`${file}: ${CHECKSUMS_FILE} says ${fromRecord.slice(0, 12)}…, the manifest ${fromManifest.slice(0, 12)}…`);
  }
  return fromManifest ?? fromRecord;
}
