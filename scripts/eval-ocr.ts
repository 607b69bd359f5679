/**
 * OCR quality through the real case-ocr route: character error rate per file (the project's
 * rendered fixtures with full ground truth, and the real photos of test/fixtures/photos where
 * their ground truth gives the text), key strings read, and patient_info field accuracy. Prints figures only, never the
 * recognised text (the photos show real names).
 *
 *   npm run eval:ocr [-- --workers 2] [-- --only report1]
 */
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { groundTruth, OCR_FIXTURES } from './lib/ocr-fixtures.js';
import { characterErrorRate, pct, startOcrEvalGateway } from './lib/eval-gateway.js';
import { fixturePath } from './lib/paths.js';
import { photoTruth } from './lib/photos.js';

type Info = { name: string | null; age: string | null; cancer_type: string | null; stage: string | null };

interface EvalCase {
  path: string;
  /** Whole expected text, for CER. */
  text?: string;
  /** Identifiers that must be read somewhere (when only part of the text is known). */
  identifiers?: string[];
  /** Other strings that must be read somewhere: a title, clinical terms and values. */
  mustRead?: string[];
  patient_info?: Info;
}

/** The real photos: whole text for the one-line crops, key strings (personal and clinical) for the report. */
function photoCases(): EvalCase[] {
  return Object.entries(photoTruth()).flatMap(([file, truth]): EvalCase[] => {
    const path = fixturePath('photos', file);
    if (truth.text !== undefined) return [{ path, text: truth.text }];
    const mustRead = [...(truth.firstLine ? [truth.firstLine] : []), ...(truth.clinical ?? [])];
    if (mustRead.length === 0) return [];
    return [{ path, mustRead, ...(truth.personal ? { identifiers: truth.personal } : {}), ...(truth.patient_info ? { patient_info: truth.patient_info } : {}) }];
  });
}

function cases(): EvalCase[] {
  const fixtures = Object.entries(groundTruth()).map(([file, truth]) => ({ path: join(OCR_FIXTURES, file), ...truth }));
  return [...fixtures, ...photoCases()];
}

const FIELDS = ['name', 'age', 'cancer_type', 'stage'] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, only: { type: 'string' } } });
  const selected = cases().filter((c) => !values.only || c.path.includes(values.only));
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: values.workers });
  const fieldRight = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<(typeof FIELDS)[number], number>;
  let fieldCases = 0;
  const cers: number[] = [];
  try {
    console.log(`OCR ${gateway.model}, ${values.workers} workers, ${selected.length} files\n`);
    console.log('file'.padEnd(40), 'CER'.padStart(7), 'ids read'.padStart(9), 'other read'.padStart(11), 'fields'.padStart(7), 'ms'.padStart(7));
    for (const c of selected) {
      const { body, ms } = await gateway.caseOcr([c.path]);
      const text = body.ocr_results[0]!.ocr_result;
      const cer = c.text === undefined ? undefined : characterErrorRate(text, c.text);
      if (cer !== undefined) cers.push(cer);
      const compact = text.replace(/\s+/g, '');
      const share = (strings?: string[]) => (strings ? `${strings.filter((s) => compact.includes(s)).length}/${strings.length}` : '');
      let fields = '';
      if (c.patient_info) {
        fieldCases++;
        const right = FIELDS.filter((f) => (body.patient_info[f] ?? null) === c.patient_info![f]);
        right.forEach((f) => fieldRight[f]++);
        fields = `${right.length}/4`;
      }
      console.log(
        basename(c.path).padEnd(40),
        (cer === undefined ? '' : pct(cer)).padStart(7),
        share(c.identifiers).padStart(9),
        share(c.mustRead).padStart(11),
        fields.padStart(7),
        ms.toFixed(0).padStart(7),
      );
    }
    const mean = cers.reduce((a, b) => a + b, 0) / Math.max(1, cers.length);
    console.log(`\nmean CER over ${cers.length} files with full text: ${pct(mean)}`);
    console.log(`patient_info field accuracy over ${fieldCases} files: ${FIELDS.map((f) => `${f} ${fieldRight[f]}/${fieldCases}`).join(', ')}`);
  } finally {
    await gateway.close();
  }
}

await main();
