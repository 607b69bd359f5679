/**
 * OCR quality through the real case-ocr route: character error rate per file (the project's
 * rendered fixtures with full ground truth, and the real photos in test/fixtures/photos where
 * their text is known) and patient_info field accuracy. Prints figures only, never the
 * recognised text (the photos show real names).
 *
 *   npm run eval:ocr [-- --workers 2] [-- --only report1]
 */
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { groundTruth, OCR_FIXTURES, photoGroundTruth, PHOTOS } from '../test/support/ocr-fixtures.js';
import { characterErrorRate, pct } from '../test/support/error-rates.js';
import { startOcrEvalGateway } from '../test/support/ocr-eval.js';

type Info = { name: string | null; age: string | null; cancer_type: string | null; stage: string | null };

interface EvalCase {
  path: string;
  /** Whole expected text, for CER. */
  text?: string;
  /** Strings that must be read somewhere (when only part of the text is known). */
  must_read?: string[];
  patient_info?: Info;
}

function cases(): EvalCase[] {
  const fixtures = Object.entries(groundTruth()).map(([file, truth]) => ({ path: join(OCR_FIXTURES, file), ...truth }));
  const photos = Object.entries(photoGroundTruth())
    .filter(([, truth]) => truth.text !== undefined || truth.must_read !== undefined)
    .map(([file, truth]) => ({ path: join(PHOTOS, file), ...truth }));
  return [...fixtures, ...photos];
}

const FIELDS = ['name', 'age', 'cancer_type', 'stage'] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, only: { type: 'string' } } });
  const selected = cases().filter((c) => !values.only || basename(c.path).includes(values.only));
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: values.workers });
  const fieldRight = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<(typeof FIELDS)[number], number>;
  let fieldCases = 0;
  const cers: number[] = [];
  try {
    console.log(`OCR ${gateway.model}, ${values.workers} workers, ${selected.length} files\n`);
    console.log('file'.padEnd(48), 'CER'.padStart(7), 'read'.padStart(7), 'fields'.padStart(7), 'ms'.padStart(7));
    for (const c of selected) {
      const { body, ms } = await gateway.caseOcr([c.path]);
      const text = body.ocr_results[0]!.ocr_result;
      const cer = c.text === undefined ? undefined : characterErrorRate(text, c.text);
      if (cer !== undefined) cers.push(cer);
      const compact = text.replace(/\s+/g, '');
      const read = c.must_read ? `${c.must_read.filter((s) => compact.includes(s)).length}/${c.must_read.length}` : '';
      let fields = '';
      if (c.patient_info) {
        fieldCases++;
        const right = FIELDS.filter((f) => (body.patient_info[f] ?? null) === c.patient_info![f]);
        right.forEach((f) => fieldRight[f]++);
        fields = `${right.length}/4`;
      }
      console.log(basename(c.path).padEnd(48), (cer === undefined ? '' : pct(cer)).padStart(7), read.padStart(7), fields.padStart(7), ms.toFixed(0).padStart(7));
    }
    const mean = cers.reduce((a, b) => a + b, 0) / Math.max(1, cers.length);
    console.log(`\nmean CER over ${cers.length} files with full text: ${pct(mean)}`);
    console.log(`patient_info field accuracy over ${fieldCases} files: ${FIELDS.map((f) => `${f} ${fieldRight[f]}/${fieldCases}`).join(', ')}`);
  } finally {
    await gateway.close();
  }
}

await main();
