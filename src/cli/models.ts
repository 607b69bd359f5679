#!/usr/bin/env node
/**
 * The models command: model files for connected and air-gapped sites.
 *
 *   mdt-models fetch --profile gpu          download a profile's files into MODELS_DIR (connected machine)
 *   mdt-models bundle --profile gpu         one tar with the files, SHA256SUMS and the manifest
 *   mdt-models install models-gpu.tar       unpack into MODELS_DIR, every file checked first
 *   mdt-models verify [--profile gpu]       hash every model file in MODELS_DIR against its checksum
 *   mdt-models prepare-ocr [--out <dir>]    prepare the PP-OCR models the engine runs (default
 *                                           $OCR_PPOCR_DIR or the install's .build/ppocr); npm run build does it
 *
 * (`npm run models:<command> -- …` from a checkout; `mdt-models` in the images.) Options:
 * --manifest <path> (default: the install's models/manifest.json, or $MODELS_MANIFEST),
 * --models-dir <dir> (default $MODELS_DIR or ./models), --out <file> (bundle).
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.js';
import { packagedModelFiles, prepareOcrModels } from '../engines/ocr/index.js';
import { CHECKSUMS_FILE } from '../platform/models/checksums.js';
import { loadManifest } from '../platform/models/manifest.js';
import { bundleProfile, fetchProfile, installBundle, verifyModels, type Context } from './model-commands.js';

/** The manifest shipped with the install (this file sits in src/cli/ or dist/cli/). */
const SHIPPED_MANIFEST = fileURLToPath(new URL('../../models/manifest.json', import.meta.url));

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      profile: { type: 'string' },
      manifest: { type: 'string', default: process.env.MODELS_MANIFEST || SHIPPED_MANIFEST },
      'models-dir': { type: 'string', default: process.env.MODELS_DIR || './models' },
      out: { type: 'string' },
    },
  });
  const context: Context = {
    manifest: await loadManifest(values.manifest),
    manifestPath: values.manifest,
    modelsDir: values['models-dir'],
    log: (line) => console.log(line),
  };
  const profile = () => values.profile ?? fail('give --profile (one of the manifest\'s profiles)');
  switch (command) {
    case 'fetch':
      return fetchProfile(context, profile());
    case 'bundle':
      return bundleProfile(context, profile(), values.out ?? `models-${profile()}.tar`);
    case 'install':
      return installBundle(context, positionals[0] ?? fail('give the bundle: mdt-models install <bundle.tar>'));
    case 'prepare-ocr':
      return prepareOcr(values.out);
    case 'verify': {
      const report = await verifyModels(context, values.profile);
      for (const line of report.lines) console.log(line);
      if (report.lines.length === 0) console.log(`no file of the manifest or of ${CHECKSUMS_FILE} in ${context.modelsDir}`);
      if (!report.ok) process.exitCode = 1;
      return;
    }
    default:
      fail('usage: mdt-models fetch|bundle|install|verify|prepare-ocr [--profile p] [--manifest f] [--models-dir d] [--out f] [bundle.tar]');
  }
}

async function prepareOcr(out: string | undefined): Promise<void> {
  const dir = out ?? loadConfig().ocr.ppocrDir;
  const started = Date.now();
  const manifest = await prepareOcrModels(packagedModelFiles(), dir);
  const recognisers = Object.keys(manifest.files.recogniser).join(', ');
  console.log(`prepared ${manifest.model} in ${dir} (recogniser ${recognisers}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function fail(message: string): never {
  throw new Error(message);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
