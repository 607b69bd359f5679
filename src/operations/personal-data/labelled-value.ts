/**
 * Labelled values: the value after a personal label ("姓名:孟丁", "门诊号 90051065"), up to the
 * next label of any kind on the line, bounded by the shape of its kind (see values.ts). A label
 * with nothing after it is an open label: its value is probably on the line below. So is one
 * whose value was only guessed at (a run of text after it no name could be told apart in): the
 * guess is still a datum, and its value may be below it after all.
 */
import { AMBIGUOUS_LABELS, NAME_SHAPE_ONLY_LABELS } from './labels.js';
import { scanLabels, type LabelMatch } from './label-scanner.js';
import { toHalfWidth } from './text.js';
import type { Detection, LineFindings, OpenLabel, PersonalKind } from './types.js';
import { valueSpan } from './values.js';

const RULE = 'labelled-value';
/**
 * Text after a colon-labelled code field that is no value of its kind ("门诊号: IZOAOE" when OCR
 * garbled the number): redacted, fail-closed, but only as where a value must be, not as a datum
 * read, so a self-audit does not take the junk OCR reads beside a painted code for a survivor.
 */
export const UNREAD_VALUE_RULE = 'unread-value';
/** A value guessed at in a run of text after its label (see ValueSpan.guessed). */
export const GUESSED_VALUE_RULE = 'guessed-value';
const FIRST_TOKEN = /^\S+?(?=[\s,;，；。]|$)/u;
/** Kinds whose values are codes OCR can garble into something no longer shaped like one. */
const CODE_KINDS: ReadonlySet<PersonalKind> = new Set(['hospital_id', 'resident_id', 'insurance_number', 'passport', 'phone']);
const ALPHANUMERIC = /[A-Za-z0-9]/u;
const SEPARATOR = /^\s*[:;.|∶]{0,2}\s*/u;
const PUNCTUATION_SEPARATOR = /[:;.|∶]/u;
const BLANK = /^[\s\p{P}]*$/u;
const HAN_START = /^\p{Script=Han}/u;
const LETTER = /\p{L}/u;

interface LabelContext {
  label: LabelMatch & { category: PersonalKind };
  line: string;
  valueStart: number;
  valueEnd: number;
  hasColon: boolean;
}

type Finding = Detection | OpenLabel | undefined;

function isPersonal(label: LabelMatch): label is LabelMatch & { category: PersonalKind } {
  return label.category !== 'field' && label.category !== 'not-label';
}

/**
 * "的患者" at a line end is prose, not a form label waiting for a value below, and a relation
 * word (or Pt) names no one by itself. A form label right after another word is still open: OCR joins
 * a table's header cells ("年龄住院号床号").
 */
function isOpen({ label, hasColon }: LabelContext): boolean {
  if (NAME_SHAPE_ONLY_LABELS.has(label.label)) return false;
  return hasColon || !AMBIGUOUS_LABELS.has(label.label.toLowerCase());
}

function contextOf(label: LabelMatch & { category: PersonalKind }, line: string, next: LabelMatch | undefined): LabelContext {
  const valueEnd = next ? next.start : line.length;
  const separator = SEPARATOR.exec(line.slice(label.end, valueEnd))![0];
  const hasColon = PUNCTUATION_SEPARATOR.test(separator);
  return { label, line, valueStart: label.end + separator.length, valueEnd, hasColon };
}

/**
 * Without a colon, a label that is also an ordinary word needs a value of the exact shape of its
 * kind, and so does an address glued to its label: it would otherwise run to the line end
 * through prose ("请核对地址后再寄送"). A relation word, and Pt, always do.
 */
function needsExactShape({ label, hasColon }: LabelContext, value: string): boolean {
  if (NAME_SHAPE_ONLY_LABELS.has(label.label)) return true;
  if (hasColon) return false;
  return AMBIGUOUS_LABELS.has(label.label.toLowerCase()) || (label.category === 'address' && HAN_START.test(value));
}

function findingOf(context: LabelContext): Finding {
  const { label, line, valueStart, valueEnd } = context;
  const value = line.slice(valueStart, valueEnd);
  if (BLANK.test(value)) return isOpen(context) ? { start: label.start, end: label.end, kind: label.category } : undefined;
  const found = valueSpan(label.category, value, needsExactShape(context, value));
  if (found) {
    return { start: valueStart + found.start, end: valueStart + found.end, kind: label.category, rule: found.guessed ? GUESSED_VALUE_RULE : RULE };
  }
  const token = context.hasColon && CODE_KINDS.has(label.category) ? FIRST_TOKEN.exec(value)?.[0] : undefined;
  return token && ALPHANUMERIC.test(token) ? { start: valueStart, end: valueStart + token.length, kind: label.category, rule: UNREAD_VALUE_RULE } : undefined;
}

const isDetection = (finding: Finding): finding is Detection => finding !== undefined && 'rule' in finding;

/** In "Patient ID: MRN00123456" or "家属：女儿郑丽" the value is there, after a second label of the same kind. */
function valueAfterTwin(labels: readonly LabelMatch[], found: readonly Finding[], index: number): boolean {
  return labels[index + 1]?.category === labels[index]!.category && isDetection(found[index + 1]);
}

/** The line's labels, and for each personal one what follows it: its value, or it is open. */
function labelFindings(rawLine: string): { labels: LabelMatch[]; found: Finding[] } {
  const line = toHalfWidth(rawLine);
  const labels = scanLabels(line).filter((label) => label.category !== 'not-label');
  return { labels, found: labels.map((label, index) => (isPersonal(label) ? findingOf(contextOf(label, line, labels[index + 1])) : undefined)) };
}

/**
 * The personal labels of a line read with their value after them on it, not a guess, and for a
 * name a name, not a number: each heads no column. A number after 姓名 may be a staff number, or
 * the cell of another row read on the label's (an age beside the 姓名 header of a table
 * photographed at a slant, its name in the cell below).
 */
export function labelsWithValues(rawLine: string): OpenLabel[] {
  const { labels, found } = labelFindings(rawLine);
  const isValue = (finding: Detection) => finding.rule === RULE && (finding.kind !== 'name' || LETTER.test(rawLine.slice(finding.start, finding.end)));
  return found.flatMap((finding, index) => (isDetection(finding) && isValue(finding) ? [{ start: labels[index]!.start, end: labels[index]!.end, kind: finding.kind }] : []));
}

export function detectLabelledValues(rawLine: string): LineFindings {
  const { labels, found } = labelFindings(rawLine);
  const findings: LineFindings = { detections: [], openLabels: [] };
  found.forEach((finding, index) => {
    if (isDetection(finding)) {
      findings.detections.push(finding);
      if (finding.rule === GUESSED_VALUE_RULE) findings.openLabels.push({ start: labels[index]!.start, end: labels[index]!.end, kind: finding.kind });
    } else if (finding && !valueAfterTwin(labels, found, index)) findings.openLabels.push(finding);
  });
  return findings;
}
