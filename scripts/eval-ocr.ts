/**
 * OCR quality through the real case-ocr route: character error rate per file (the project's
 * rendered fixtures with full ground truth, and the real photos of test/fixtures/photos where
 * their ground truth gives the text), key strings read, and patient_info: per field, how many of
 * the values the pages give were returned, and how many fields were returned with a value the
 * pages do not give (wrong or invented). The patient-layout requests (test/fixtures/ocr/patient)
 * send their files together, as a platform sends a case. Prints figures only, never the
 * recognised text (the photos show real names).
 *
 *   npm run eval:ocr [-- --workers 2] [-- --only report1]
 */
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { groundTruth, OCR_FIXTURES, PATIENT_FIXTURES, patientRequests } from './lib/ocr-fixtures.js';
import { characterErrorRate, pct, startOcrEvalGateway } from './lib/eval-gateway.js';
import { fixturePath } from './lib/paths.js';
import { photoTruth } from './lib/photos.js';

type Info = { name: string | null; age: string | null; cancer_type: string | null; stage: string | null };

interface EvalCase {
  /** The files of one request, in order. */
  paths: string[];
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
    if (truth.text !== undefined) return [{ paths: [path], text: truth.text }];
    const mustRead = [...(truth.firstLine ? [truth.firstLine] : []), ...(truth.clinical ?? [])];
    if (mustRead.length === 0) return [];
    return [{ paths: [path], mustRead, ...(truth.personal ? { identifiers: truth.personal } : {}), ...(truth.patient_info ? { patient_info: truth.patient_info } : {}) }];
  });
}

function cases(): EvalCase[] {
  const fixtures = Object.entries(groundTruth()).map(([file, truth]) => ({ paths: [join(OCR_FIXTURES, file)], ...truth }));
  const layouts = Object.values(patientRequests()).map(({ files, text, patient_info }) => ({ paths: files.map((file) => join(PATIENT_FIXTURES, file)), text, patient_info }));
  return [...fixtures, ...layouts, ...photoCases()];
}

const FIELDS = ['name', 'age', 'cancer_type', 'stage'] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, only: { type: 'string' } } });
  const selected = cases().filter((c) => !values.only || c.paths.some((path) => path.includes(values.only!)));
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: values.workers });
  const fieldFound = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<(typeof FIELDS)[number], number>;
  const fieldGiven = { ...fieldFound };
  let fieldCases = 0;
  let notOnPage = 0;
  const cers: number[] = [];
  try {
    console.log(`OCR ${gateway.model}, ${values.workers} workers, ${selected.length} files\n`);
    console.log('file'.padEnd(40), 'CER'.padStart(7), 'ids read'.padStart(9), 'other read'.padStart(11), 'fields'.padStart(7), 'ms'.padStart(7));
    for (const c of selected) {
      const { body, ms } = await gateway.caseOcr(c.paths);
      const text = body.ocr_results.map((result) => result.ocr_result).join('\n');
      const cer = c.text === undefined ? undefined : characterErrorRate(text, c.text);
      if (cer !== undefined) cers.push(cer);
      const compact = text.replace(/\s+/g, '');
      const share = (strings?: string[]) => (strings ? `${strings.filter((s) => compact.includes(s)).length}/${strings.length}` : '');
      let fields = '';
      if (c.patient_info) {
        fieldCases++;
        const returned = (f: (typeof FIELDS)[number]) => body.patient_info[f] ?? null;
        const given = FIELDS.filter((f) => c.patient_info![f] !== null);
        const found = given.filter((f) => returned(f) === c.patient_info![f]);
        given.forEach((f) => fieldGiven[f]++);
        found.forEach((f) => fieldFound[f]++);
        notOnPage += FIELDS.filter((f) => returned(f) !== null && returned(f) !== c.patient_info![f]).length;
        fields = `${found.length}/${given.length}`;
      }
      console.log(
        c.paths.map((path) => basename(path)).join('+').padEnd(40),
        (cer === undefined ? '' : pct(cer)).padStart(7),
        share(c.identifiers).padStart(9),
        share(c.mustRead).padStart(11),
        fields.padStart(7),
        ms.toFixed(0).padStart(7),
      );
    }
    const mean = cers.reduce((a, b) => a + b, 0) / Math.max(1, cers.length);
    console.log(`\nmean CER over ${cers.length} files with full text: ${pct(mean)}`);
    console.log(`patient_info over ${fieldCases} requests, fields found: ${FIELDS.map((f) => `${f} ${fieldFound[f]}/${fieldGiven[f]}`).join(', ')}`);
    console.log(`patient_info fields returned with a value the pages do not give (wrong or invented): ${notOnPage}`);
  } finally {
    await gateway.close();
  }
}

await main();
