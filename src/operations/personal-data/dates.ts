/** Date expressions as reports and forms write them; used for labelled birth dates only. */

const MONTH_NAMES = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\\.?';
const YEAR = '(?:19|20)\\d{2}';
const DATE_FORMS = [
  `${YEAR}\\s?[-/.年]\\s?\\d{1,2}\\s?[-/.月]\\s?\\d{1,2}(?:\\s?日)?`,
  `${YEAR}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])(?!\\d)`,
  `\\d{1,2}\\s?${MONTH_NAMES},?\\s?${YEAR}`,
  `${MONTH_NAMES}\\s?\\d{1,2},?\\s?${YEAR}`,
  `${YEAR}\\s?[-/.年]\\s?\\d{1,2}(?:\\s?月)?(?![\\d.])`,
];

/** A date expression at the very start of the text, if any. */
export const LEADING_DATE = new RegExp(`^(?:${DATE_FORMS.join('|')})`, 'iu');

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isValidCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 && !leap ? 28 : DAYS_IN_MONTH[month - 1]!;
  return day <= days;
}

/** "20160824" → true: eight digits forming a real date between 1900 and 2100. */
export function isYyyymmddDate(digits: string): boolean {
  if (!/^\d{8}$/u.test(digits)) return false;
  const year = Number(digits.slice(0, 4));
  if (year < 1900 || year > 2100) return false;
  return isValidCalendarDate(year, Number(digits.slice(4, 6)), Number(digits.slice(6, 8)));
}
