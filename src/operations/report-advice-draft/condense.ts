import type { ReportAdviceDraftRequest } from '../../contract/advice.js';
import { cutAtSentence } from '../text/sentences.js';

/**
 * Shares `budget` characters among texts of the given lengths: short texts keep all of theirs,
 * long ones split what is left evenly (water-filling), so one long opinion cannot crowd out
 * the others.
 */
export function shareCharacters(lengths: readonly number[], budget: number): number[] {
  const shares = new Array<number>(lengths.length).fill(0);
  const order = lengths.map((length, index) => ({ length, index })).sort((a, b) => a.length - b.length);
  let left = Math.max(0, budget);
  order.forEach(({ length, index }, position) => {
    const fair = Math.floor(left / (order.length - position));
    shares[index] = Math.min(length, fair);
    left -= shares[index]!;
  });
  return shares;
}

/**
 * The request with its free texts (diagnosis, key question, opinions, supplements) cut at
 * sentence boundaries so that together they hold at most `maxChars`; names stay whole.
 */
export function condenseRequest(request: ReportAdviceDraftRequest, maxChars: number, marker: string): ReportAdviceDraftRequest {
  const texts = [
    request.case_summary.diagnosis,
    request.case_summary.key_question,
    ...request.dept_opinions.flatMap((opinion) => [opinion.content, ...opinion.supplements.map((s) => s.content)]),
  ];
  const shares = shareCharacters(
    texts.map((text) => text.length),
    maxChars,
  );
  let next = 0;
  const cut = (text: string) => cutAtSentence(text, shares[next++]!, marker);
  return {
    ...request,
    case_summary: { diagnosis: cut(request.case_summary.diagnosis), key_question: cut(request.case_summary.key_question) },
    dept_opinions: request.dept_opinions.map((opinion) => ({
      ...opinion,
      content: cut(opinion.content),
      supplements: opinion.supplements.map((supplement) => ({ ...supplement, content: cut(supplement.content) })),
    })),
  };
}

export function freeTextLength(request: ReportAdviceDraftRequest): number {
  return (
    request.case_summary.diagnosis.length +
    request.case_summary.key_question.length +
    request.dept_opinions.reduce(
      (sum, opinion) => sum + opinion.content.length + opinion.supplements.reduce((s, supplement) => s + supplement.content.length, 0),
      0,
    )
  );
}
