/**
 * Patient information from the page's layout. A field's value is found where its label puts it:
 * after the label on its line (up to the next label: "Patient: John Ellis  Sex: M"), else right of
 * it on its row (OCR cut the row), else in the cell below it (a table's header row over its value
 * row); labels joined by slashes share one value the same way ("Age/Sex: 58/M"). The name is
 * what the de-identification detectors find after a patient's label (姓名, 患者, 名 clipped of its
 * 姓, Name, Patient, Pt …) or in the cell before 性别: a name the de-identification paints is a
 * name case-ocr can return (with the spaces OCR dropped between English words put back). Files
 * and pages are read in request order; the first value found wins, so a stage on any file of the
 * request counts.
 *
 * A field is returned only with evidence on the page, never guessed: age is digits only, in years
 * ("56岁" → "56"; months or days → null); cancer_type is the organ's type in the diagnosis's
 * language (cancer-types.ts); stage is "IIIA" style (Roman, upper case, no 期, a sub-stage digit
 * kept: "IA3") or TNM as written without spaces ("pT2N1M0"; a 0 that OCR read as O is the digit).
 */
import { removeCjkSpaces } from '../../engines/ocr/index.js';
import type { OcrPage, OcrWord } from '../../engines/types.js';
import { cancerTypeOf } from './cancer-types.js';
import { findLineData } from './index.js';
import { scanLabels, type LabelMatch } from './label-scanner.js';
import { GUESSED_VALUE_RULE } from './labelled-value.js';
import { cellBelow, endsLine, firstWordRightOf, spanBox, wordsRightOf } from './layout.js';
import { pageLines, type PageLine } from './lines.js';
import { nameValueSpan } from './name-value.js';
import { toHalfWidth } from './text.js';

export interface PatientInfo {
  name: string | null;
  age: string | null;
  cancer_type: string | null;
  stage: string | null;
}

/** Labels (as the vocabulary in labels.ts writes them) whose value is the patient's own name. */
const PATIENT_NAME_LABELS: ReadonlySet<string> = new Set([
  '姓名', '患者姓名', '病人姓名', '患者', '病人', '名', 'Name', 'Patient', 'Patient Name', 'Pt', 'Pt Name', 'Pt. Name',
]);
const NAME_BEFORE_SEX_RULE = 'name-before-sex';

type Field = 'age' | 'diagnosis' | 'stage';
/** Field labels (labels.ts FIELD_LABELS) whose value a patient_info field is read from. */
const FIELD_OF_LABEL: Readonly<Record<string, Field>> = {
  年龄: 'age', Age: 'age',
  诊断: 'diagnosis', 临床诊断: 'diagnosis', 病理诊断: 'diagnosis', 入院诊断: 'diagnosis', 出院诊断: 'diagnosis', Diagnosis: 'diagnosis',
  分期: 'stage', 临床分期: 'stage', 病理分期: 'stage', TNM分期: 'stage', Stage: 'stage',
};

const SEPARATOR = /^[\s:;.|∶]*/u;
const BLANK = /^[\s\p{P}]*$/u;

/** What the page says after each label, in reading order. */
interface Readings {
  names: string[];
  values: Record<Field, string[]>;
  lines: string[];
}

function joinWords(words: readonly OcrWord[]): string {
  return removeCjkSpaces(words.map((word) => word.text).join(' '));
}

/**
 * A label's value where the layout puts it when nothing follows the label on its line: the words
 * right of it on its row, else the cell below it. Empty when there is none.
 */
function valueByLayout(page: OcrPage, line: PageLine, label: LabelMatch): string {
  const labelBox = spanBox(page, line, label.start, label.end);
  if (!labelBox) return '';
  if (endsLine(line, label.end)) {
    const right = wordsRightOf(page, labelBox, line);
    if (right.length) return joinWords(right);
  }
  return joinWords(cellBelow(page, labelBox, firstWordRightOf(line, labelBox)?.x0));
}

/**
 * The text after a label on its line, up to the next label, else where the layout puts the value
 * of its header (the label itself, or the slash-joined labels it ends).
 */
function valueOf(page: OcrPage, line: PageLine, text: string, labels: readonly LabelMatch[], index: number, header = labels[index]!): string {
  const label = labels[index]!;
  const onLine = text.slice(label.end, labels[index + 1]?.start ?? text.length).replace(SEPARATOR, '');
  return BLANK.test(onLine) ? valueByLayout(page, line, header) : onLine;
}

const SLASH = /^\s*\/\s*$/u;
const SLASH_SPLIT = /\s*\/\s*/u;

/**
 * A field label's value where forms join labels with slashes and give their values the same way
 * ("性别/年龄：男/56岁", "Age/Sex: 58/M", a header "Age/Sex" over "58/M"): the part at the label's
 * place in the value of the last of them. Empty when the parts do not match the labels one to one.
 */
function fieldValueOf(page: OcrPage, line: PageLine, text: string, labels: readonly LabelMatch[], index: number): string {
  const joined = (at: number) => SLASH.test(text.slice(labels[at - 1]!.end, labels[at]!.start));
  let first = index;
  while (first > 0 && joined(first)) first--;
  let last = index;
  while (last + 1 < labels.length && joined(last + 1)) last++;
  if (first === last) return valueOf(page, line, text, labels, index);
  const parts = valueOf(page, line, text, labels, last, { ...labels[last]!, start: labels[first]!.start }).trim().split(SLASH_SPLIT);
  return parts.length === last - first + 1 ? parts[index - first]! : '';
}

/**
 * Whether a name found at `start` stands after a patient's label: the last label before it,
 * unless that label ends another person's ("Physician Name").
 */
function isPatientLabelBefore(labels: readonly LabelMatch[], start: number, text: string): boolean {
  const index = labels.findLastIndex((label) => label.end <= start);
  const label = labels[index];
  if (!label || !PATIENT_NAME_LABELS.has(label.label)) return false;
  const before = labels[index - 1];
  const joined = before && /^\s*$/u.test(text.slice(before.end, label.start));
  return !(joined && before.category === 'name' && !PATIENT_NAME_LABELS.has(before.label));
}

/** Surname particles written with a capital inside (McDonald, MacArthur, DeLuca, VanDyke): one word, not two. */
const NAME_PARTICLE = /^(?:Mc|Mac|Da|De|Del|Della|Des|Di|Do|Dos|Du|Fitz|La|Le|St|Van|Von)$/u;
/** A capitalised word glued to the next one ("JamesWhitfield"). */
const GLUED_WORD = /[A-Z][a-z]+(?=[A-Z][a-z])/gu;

/**
 * A name as the page writes it: without the spaces OCR put between Chinese characters, and with
 * the space OCR drops between Latin words in small print ("JamesWhitfield" → "James Whitfield").
 */
const tidyName = (name: string) => removeCjkSpaces(name.trim()).replace(GLUED_WORD, (word) => (NAME_PARTICLE.test(word) ? word : `${word} `));

function readLine(page: OcrPage, line: PageLine, readings: Readings): void {
  const text = toHalfWidth(line.text);
  readings.lines.push(text);
  const labels = scanLabels(text).filter((label) => label.category !== 'not-label');
  const findings = findLineData(line);
  for (const detection of findings.detections) {
    // A name guessed at in a run of text is painted by de-identification, never returned: its label is open, and the layout may give its value.
    if (detection.kind !== 'name' || detection.rule === GUESSED_VALUE_RULE) continue;
    if (detection.rule === NAME_BEFORE_SEX_RULE || isPatientLabelBefore(labels, detection.start, text)) {
      readings.names.push(tidyName(line.text.slice(detection.start, detection.end)));
    }
  }
  labels.forEach((label, index) => {
    const field = FIELD_OF_LABEL[label.label];
    if (field) readings.values[field].push(fieldValueOf(page, line, text, labels, index));
    const open = findings.openLabels.some((openLabel) => openLabel.start === label.start && openLabel.kind === 'name');
    if (open && PATIENT_NAME_LABELS.has(label.label)) {
      const value = valueByLayout(page, line, label);
      const span = nameValueSpan(value, false);
      if (span && !span.guessed) readings.names.push(tidyName(value.slice(span.start, span.end)));
    }
  });
}

const MAX_AGE = 120;
const LABELLED_AGE = /^(\d{1,3})(?!\d)\s*(岁|歲|周岁|个月|月|天|日|周|years?|yrs?|y|months?|mos?|m|weeks?|wks?|w|days?|d)?(?![a-z])/iu;
/** "63岁", "a 61-year-old man", "58 y/o", "58yo". */
const UNLABELLED_AGES = [
  /(?<![\d.])(\d{1,3})\s*(?:岁|歲|周岁)/u,
  /(?<![\d.])(\d{1,3})[- ]?(?:years?|yrs?)[- ]old\b/iu,
  /(?<![\w.])(\d{1,3}) ?(?:y\/o|y\.o\.|yo)(?![A-Za-z])/iu,
];
const NOT_YEARS = /^(?:个月|月|天|日|周|months?|mos?|m|weeks?|wks?|w|days?|d)$/iu;

function years(digits: string): string | null {
  const age = Number(digits);
  return age > 0 && age <= MAX_AGE ? String(age) : null;
}

/** Age in years from the value of an age label; null for months, days or no number. */
export function ageFromValue(value: string): string | null {
  const match = LABELLED_AGE.exec(value.trim());
  if (!match || NOT_YEARS.test(match[2] ?? '')) return null;
  return years(match[1]!);
}

/** Age in years from text with no label: "63岁", "a 61-year-old man". */
export function ageInText(text: string): string | null {
  for (const pattern of UNLABELLED_AGES) {
    const match = pattern.exec(text);
    if (match) return years(match[1]!);
  }
  return null;
}

const ROMAN: Record<string, string> = { Ⅰ: 'I', Ⅱ: 'II', Ⅲ: 'III', Ⅳ: 'IV', '2': 'II', '3': 'III', '4': 'IV' };
/**
 * After a 分期/Stage label, OCR reads the bars of a Roman numeral as I, l, 1 or | ("1IB" for
 * IIB): up to three of them (and a V) count as I. A Chinese reader may take three bars for 川
 * ("I川IA", "I川IIA" for IIIA): a run of bars with 川 in it is III, the most bars a stage has. A
 * sub-stage may carry a digit ("IA3"). Without a label only true numerals count.
 */
const NUMERAL_AFTER_LABEL = '(IV|[Il1|]*川[Il1|川]*|[Il1|]{1,3}V?|V|Ⅳ|Ⅲ|Ⅱ|Ⅰ|[2-4])';
const SUB_STAGE = '\\s*((?:[ABCabc][1-3]?)?)';
const STAGE_VALUE = new RegExp(`^(?:stage\\s*)?${NUMERAL_AFTER_LABEL}${SUB_STAGE}(?![A-Za-z0-9])`, 'iu');
const STAGE_IN_TEXT = [
  new RegExp(`(?:分\\s*期|Stage|Staging(?=\\s*[:：]))[\\s:：]*${NUMERAL_AFTER_LABEL}${SUB_STAGE}(?![A-Za-z0-9])`, 'iu'),
  new RegExp(`(?<![A-Za-z0-9])(IV|III|II|I|Ⅳ|Ⅲ|Ⅱ|Ⅰ)${SUB_STAGE}\\s*期`, 'u'),
];
/**
 * TNM as reports write it ("pT2N1M0", "cT2a N2 M0", "pT1cN0(sn)M0", "ypT1N1miM0"). OCR reads a
 * node's or metastasis' 0 as the letter O ("pT2NOMO"): there it is the digit.
 */
const TNM = /(?<![A-Za-z])([cpy]{0,2}T(?:[0-4]|is|x|X)[a-d]?)\s*N([0-3]|O|x|X)((?:mi|[a-c])?(?:\((?:sn|i[+-]|mol[+-]|f)\))?)\s*M([01]|O|x|X)([a-c]?)(?![A-Za-z0-9])/u;
const zeroOf = (digit: string) => digit.replace('O', '0');

function romanStage(numeral: string, subStage: string): string {
  const roman = numeral.includes('川') ? 'III' : ROMAN[numeral] ?? numeral.replace(/[l1|]/gu, 'I');
  return roman + subStage.toUpperCase();
}

function tnmIn(text: string): string | null {
  const tnm = TNM.exec(text);
  return tnm ? `${tnm[1]}N${zeroOf(tnm[2]!)}${tnm[3]}M${zeroOf(tnm[4]!)}${tnm[5]}` : null;
}

/** The stage a stage label's value gives: a Roman stage at its start, else a TNM in it. */
export function stageFromValue(value: string): string | null {
  const stage = STAGE_VALUE.exec(value.trim());
  return stage ? romanStage(stage[1]!, stage[2]!) : tnmIn(value);
}

/** A stage written with its label or 期 anywhere in the text, else a TNM. */
export function stageInText(text: string): string | null {
  for (const pattern of STAGE_IN_TEXT) {
    const stage = pattern.exec(text);
    if (stage) return romanStage(stage[1]!, stage[2]!);
  }
  return tnmIn(text);
}

function firstOf<T>(values: readonly T[], read: (value: T) => string | null): string | null {
  for (const value of values) {
    const found = read(value);
    if (found) return found;
  }
  return null;
}

/** Patient information over the pages of all files of a request, in request order. */
export function readPatientInfo(pages: readonly OcrPage[]): PatientInfo {
  const readings: Readings = { names: [], values: { age: [], diagnosis: [], stage: [] }, lines: [] };
  for (const page of pages) for (const line of pageLines(page)) readLine(page, line, readings);
  const labelledAge = readings.values.age.find((value) => /\d/u.test(value));
  return {
    name: readings.names[0] ?? null,
    age: labelledAge === undefined ? firstOf(readings.lines, ageInText) : ageFromValue(labelledAge),
    cancer_type: firstOf(readings.values.diagnosis, cancerTypeOf) ?? firstOf(readings.lines, cancerTypeOf),
    stage: firstOf(readings.values.stage, stageFromValue) ?? firstOf(readings.lines, stageInText),
  };
}
