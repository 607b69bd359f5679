/**
 * OCR quality through the real case-ocr route: character error rate per file (the project's
 * rendered fixtures with full ground truth, and the real photos of test/fixtures/photos where
 * their ground truth gives the text), key strings read, and patient_info: per field, how many of
 * the values the pages give were returned, and how many fields were returned with a value the
 * pages do not give (wrong or invented). The patient-layout requests (test/fixtures/ocr/patient)
 * send their files together, as a platform sends a case. The full A4 pages (test/fixtures/ocr/a4)
 * count lost lines too: the numbers of the lines of the ground truth that the text read does not
 * hold. Each family (rendered pages, patient layouts, A4 pages, photos) is summed up on its own,
 * and then by language (zh where its truth holds Chinese):
 * mean CER, lowest char recall, lost lines and patient fields. Prints figures only, never the
 * recognised text (the photos show real names).
 *
 *   npm run eval:ocr [-- --workers 2] [-- --only report1] [-- --family a4]
 */
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { A4_FIXTURES, a4Truth, groundTruth, OCR_FIXTURES, PATIENT_FIXTURES, patientRequests } from './lib/ocr-fixtures.js';
import { characterErrorRate, charRecall, lostLines, pct, startOcrEvalGateway } from './lib/eval-gateway.js';
import { fixturePath } from './lib/paths.js';
import { photoTruth } from './lib/photos.js';

type Info = { name: string | null; age: string | null; cancer_type: string | null; stage: string | null };

const FAMILIES = ['rendered', 'patient', 'a4', 'photos'] as const;
type Family = (typeof FAMILIES)[number];

interface EvalCase {
  family: Family;
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
    if (truth.text !== undefined) return [{ family: 'photos', paths: [path], text: truth.text }];
    const mustRead = [...(truth.firstLine ? [truth.firstLine] : []), ...(truth.clinical ?? [])];
    if (mustRead.length === 0) return [];
    return [{ family: 'photos', paths: [path], mustRead, ...(truth.personal ? { identifiers: truth.personal } : {}), ...(truth.patient_info ? { patient_info: truth.patient_info } : {}) }];
  });
}

function cases(): EvalCase[] {
  const fixtures = Object.entries(groundTruth()).map(([file, truth]): EvalCase => ({ family: 'rendered', paths: [join(OCR_FIXTURES, file)], ...truth }));
  const layouts = Object.values(patientRequests()).map(({ files, text, patient_info }): EvalCase => ({ family: 'patient', paths: files.map((file) => join(PATIENT_FIXTURES, file)), text, patient_info }));
  const a4 = Object.entries(a4Truth()).map(([file, truth]): EvalCase => ({ family: 'a4', paths: [join(A4_FIXTURES, file)], ...truth }));
  return [...fixtures, ...layouts, ...a4, ...photoCases()];
}

const FIELDS = ['name', 'age', 'cancer_type', 'stage'] as const;
type Field = (typeof FIELDS)[number];

/** What one request read, measured against its truth. */
interface Measured {
  /** CER, char recall and the expected lines not read, where the whole text is known. */
  full?: { cer: number; recall: number; lost: number[]; lines: number };
  /** The request's fields: found where expected, and those returned with a value the pages do not give. */
  fields?: { given: Field[]; found: Field[]; notOnPage: number };
}

function measure(c: EvalCase, text: string, returned: Partial<Record<Field, string | null>>): Measured {
  const measured: Measured = {};
  if (c.text !== undefined) {
    measured.full = { cer: characterErrorRate(text, c.text), recall: charRecall(text, c.text), lost: lostLines(text, c.text), lines: c.text.split('\n').length };
  }
  if (c.patient_info) {
    const expected = c.patient_info;
    const value = (f: Field) => returned[f] ?? null;
    const given = FIELDS.filter((f) => expected[f] !== null);
    measured.fields = {
      given,
      found: given.filter((f) => value(f) === expected[f]),
      notOnPage: FIELDS.filter((f) => value(f) !== null && value(f) !== expected[f]).length,
    };
  }
  return measured;
}

/** What one family's (or one family's language's) requests added up to. */
class Tally {
  readonly cers: number[] = [];
  readonly recalls: number[] = [];
  lost = 0;
  lines = 0;
  requests = 0;
  fieldCases = 0;
  notOnPage = 0;
  readonly fieldFound = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<Field, number>;
  readonly fieldGiven = { ...this.fieldFound };

  add({ full, fields }: Measured): void {
    this.requests++;
    if (full) {
      this.cers.push(full.cer);
      this.recalls.push(full.recall);
      this.lost += full.lost.length;
      this.lines += full.lines;
    }
    if (fields) {
      this.fieldCases++;
      fields.given.forEach((f) => this.fieldGiven[f]++);
      fields.found.forEach((f) => this.fieldFound[f]++);
      this.notOnPage += fields.notOnPage;
    }
  }

  summary(name: string): string[] {
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    const lines = [`${name}: ${this.requests} requests; mean CER ${pct(mean(this.cers))} over ${this.cers.length} with full text, worst ${pct(Math.max(0, ...this.cers))}`];
    if (this.recalls.length) lines.push(`  char recall mean ${mean(this.recalls).toFixed(3)}, lowest ${Math.min(...this.recalls).toFixed(3)}; lost lines ${this.lost} of ${this.lines}`);
    if (this.fieldCases) {
      lines.push(`  patient_info over ${this.fieldCases} requests, fields found: ${FIELDS.map((f) => `${f} ${this.fieldFound[f]}/${this.fieldGiven[f]}`).join(', ')}`);
      lines.push(`  fields returned with a value the pages do not give (wrong or invented): ${this.notOnPage}`);
    }
    return lines;
  }
}

/** The language of a request's truth: zh where it holds any Han character. */
function languageOf(c: EvalCase): 'zh' | 'en' {
  const truth = [c.text ?? '', ...(c.mustRead ?? []), ...(c.identifiers ?? [])].join('');
  return /\p{Script=Han}/u.test(truth) ? 'zh' : 'en';
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, only: { type: 'string' }, family: { type: 'string' } } });
  const selected = cases().filter((c) => (!values.only || c.paths.some((path) => path.includes(values.only!))) && (!values.family || c.family === values.family));
  const gateway = await startOcrEvalGateway({ OCR_WORKERS: values.workers });
  const tallies = new Map<string, Tally>();
  const tallyOf = (name: string) => tallies.get(name) ?? tallies.set(name, new Tally()).get(name)!;
  try {
    console.log(`OCR ${gateway.model}, ${values.workers} workers, ${selected.length} files\n`);
    console.log('file'.padEnd(40), 'CER'.padStart(7), 'recall'.padStart(7), 'lost lines'.padStart(12), 'ids read'.padStart(9), 'other read'.padStart(11), 'fields'.padStart(7), 'ms'.padStart(7));
    for (const c of selected) {
      const { body, ms } = await gateway.caseOcr(c.paths);
      const text = body.ocr_results.map((result) => result.ocr_result).join('\n');
      const measured = measure(c, text, body.patient_info);
      tallyOf(c.family).add(measured);
      tallyOf(`${c.family} ${languageOf(c)}`).add(measured);
      const { full, fields } = measured;
      const compact = text.replace(/\s+/g, '');
      const share = (strings?: string[]) => (strings ? `${strings.filter((s) => compact.includes(s)).length}/${strings.length}` : '');
      console.log(
        c.paths.map((path) => basename(path)).join('+').padEnd(40),
        (full ? pct(full.cer) : '').padStart(7),
        (full ? full.recall.toFixed(3) : '').padStart(7),
        (full ? full.lost.join(',') || '0' : '').padStart(12),
        share(c.identifiers).padStart(9),
        share(c.mustRead).padStart(11),
        (fields ? `${fields.found.length}/${fields.given.length}` : '').padStart(7),
        ms.toFixed(0).padStart(7),
      );
    }
    console.log('');
    // Each family, then each of its languages where it has both.
    for (const family of FAMILIES) {
      const languages = [`${family} zh`, `${family} en`].filter((name) => tallies.has(name));
      for (const name of [family, ...(languages.length > 1 ? languages : [])]) {
        const tally = tallies.get(name);
        if (tally) console.log(tally.summary(name).join('\n'));
      }
    }
  } finally {
    await gateway.close();
  }
}

await main();
