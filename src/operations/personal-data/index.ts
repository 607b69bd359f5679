/**
 * Personal data on a page, one module for the de-identification (which paints it) and case-ocr
 * (which reads the patient's own fields from it, patient-info.ts), so both find the same names.
 * Where a label's value stands when it is not on the label's line: layout.ts.
 *
 * Personal data in ONE line of OCR text (Chinese first, English too). The operator's reference:
 *
 * 1. labelled-value — the value after a personal label (姓名, 门诊号, 出生日期, 地址, 电话, 身份证号,
 *    医保号, 护照, 邮箱, Name, MRN, DOB, … see labels.ts), up to the next label of any kind
 *    (personal or clinical: 性别, 年龄, 诊断, 关系, Date …) or the line end, bounded by kind:
 *    - name: a Chinese name is its first 2–4 Han characters (longer with ·, "张 三" if OCR kept
 *      spaces; in a longer run it ends before 因/于/在/签/代诉/陪同…), never 男/女/不详; an English
 *      name up to 4 capitalised words (titles and degrees stay visible; lower case only when
 *      nothing else follows a colon); else a number or code, not a date;
 *    - ID kinds: the first token, OCR spaces between digit groups allowed ("9005 1065");
 *    - phone: digit groups ("(0512) 6778-0000"); birth date: the date expression, else the token;
 *    - address: the rest up to the next label.
 *    The longest label wins; words such as 检验科 or 患者信息 are not labels. A label that is also
 *    an ordinary word (患者, 病人, 家属, 检验, 出生, Patient …) without a colon needs a value of the
 *    exact shape: a name is a common surname and one or two more characters, not a digit and not
 *    a prose word ("患者张三，男" is a name; "患者3个月前", "患者自述", "患者高血压" are not), a date
 *    after 出生, an address with 省/市/路/号…. A label with nothing readable after it is reported
 *    as an open label, unless a second label of its kind follows with the value ("家属：女儿郑丽").
 *    Contact persons and relatives: 紧急联系人, 联系人, 家属, 监护人, Emergency contact, Next of kin,
 *    Contact person, Guardian, Spouse take names; 联系方式, 联系人电话, 家属电话, 单位电话 … take
 *    phone numbers; relation words (父亲, 母亲, 配偶, 女儿 …) take only a plausible name, colon or
 *    not, since family histories are full of them ("父亲：高血压").
 * 2. resident-id — 18-character resident IDs (GB 11643 check digit; a wrong check digit is still
 *    redacted as 'identifier') and the old 15-digit form with a valid birth date.
 * 3. phone — anywhere in a line: mobiles 1[3-9]xxxxxxxxx (+86, 3-4-4), landlines with an area
 *    code ("(010) 8888-6666", "021-12345678", "0755 1234 5678"), 400/800 numbers, North American
 *    "(555) 123-4567", "555-123-4567", and + international numbers of 8–15 digits
 *    ("+1 555 123 4567", "+44 20 7946 0958"); never lab values, ranges, dates, "120/80".
 * 4. long-identifier — ≥ 9 digits, 7 or 8 digits that are not a YYYYMMDD date, or a code of ≥ 8
 *    letters/digits with ≥ 6 digits, as 'identifier'.
 * 5. email — local@domain.tld; passport — E/G/D/S/P + 8 digits after 护照/Passport on the line.
 * 6. street-address — unlabelled 省/市/区… + 路/街/道… + number + 号.
 * 7. name-before-sex — a cell holding only a plausible Chinese name right before the 性别 field
 *    of its row: a patient row whose 姓名 label was not read ("孟丁  性别男").
 * Unlabelled dates, lab values, ranges, stages, TNM and ICD codes are clinical and stay visible.
 * Full-width letters and digits are read as ASCII; offsets are UTF-16 offsets of the input line.
 * Overlapping detections are merged (see merge.ts).
 */
import { scanLabels, wholeLabel } from './label-scanner.js';
import { detectEmails } from './email.js';
import { detectLabelledValues } from './labelled-value.js';
import { crossesColumnGap } from './layout.js';
import type { PageLine } from './lines.js';
import { detectLongIdentifiers, DIGIT_GROUPS_RULE } from './long-identifier.js';
import { detectNameBeforeSex } from './name-before-sex.js';
import { mergeDetections } from './merge.js';
import { detectPassports } from './passport.js';
import { detectPhones } from './phone.js';
import { detectResidentIds } from './resident-id.js';
import { detectStreetAddresses } from './street-address.js';
import { toHalfWidth } from './text.js';
import type { Detection, LineFindings, PersonalKind } from './types.js';

export type { Detection, LineFindings, OpenLabel, PersonalKind } from './types.js';
export { detectLabelledValues, GUESSED_VALUE_RULE, labelsWithValues, UNREAD_VALUE_RULE } from './labelled-value.js';
export { detectResidentIds, isValidResidentId, residentIdCheckChar } from './resident-id.js';
export { detectPhones } from './phone.js';
export { detectLongIdentifiers } from './long-identifier.js';
export { detectEmails } from './email.js';
export { detectPassports } from './passport.js';
export { detectStreetAddresses } from './street-address.js';
export { mergeDetections } from './merge.js';
export { pageLines, type PageLine } from './lines.js';
export { cellBelow, endsLine, firstWordRightOf, heightOf, RIGHT_REACH_HEIGHTS, spanBox, spanCharQuads, union, wordsRightOf } from './layout.js';

const UNLABELLED_DETECTORS = [detectResidentIds, detectPhones, detectEmails, detectPassports, detectStreetAddresses, detectLongIdentifiers, detectNameBeforeSex];

export function findPersonalData(line: string, isDatum: (detection: Detection) => boolean = () => true): LineFindings {
  const labelled = detectLabelledValues(line);
  const unlabelled = UNLABELLED_DETECTORS.flatMap((detect) => detect(line)).filter(isDatum);
  return { detections: mergeDetections([...labelled.detections, ...unlabelled]), openLabels: labelled.openLabels };
}

/**
 * findPersonalData on a line of a page, whose words' places are known: digit groups a column
 * apart are two numbers, not one that OCR cut into cells.
 */
export function findLineData(line: PageLine): LineFindings {
  return findPersonalData(line.text, (detection) => detection.rule !== DIGIT_GROUPS_RULE || !crossesColumnGap(line, detection.start, detection.end));
}

/** Spaces and separators OCR may put in or after a label: "姓 名：", "Passport No." */
const LABEL_DECORATION = /[\s:;.|∶]+/gu;

/** '姓名：' → 'name', 'MRN' → 'hospital_id'; undefined for clinical labels and other text. */
export function isPersonalLabel(text: string): PersonalKind | undefined {
  const entry = wholeLabel(toHalfWidth(text).replace(LABEL_DECORATION, ''));
  return entry && entry.category !== 'field' && entry.category !== 'not-label' ? entry.category : undefined;
}

/** Whether a text begins with a label of any kind, personal or clinical ("性别：男", "Age 61"). */
export function startsWithLabel(text: string): boolean {
  const line = toHalfWidth(text);
  const first = scanLabels(line).find((label) => label.category !== 'not-label');
  return first !== undefined && !line.slice(0, first.start).trim();
}
