import type { LlmJsonRequest } from '../../src/engines/types.js';

/** What a judge prompt asks: the points (seq → name) and the window of speech it shows. */
export function readJudgePrompt(request: LlmJsonRequest<unknown>): { seqs: number[]; window: string } | null {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const window = /<<<\n([\s\S]*)\n>>>/.exec(user)?.[1];
  if (window === undefined) return null;
  const seqs = [...user.matchAll(/^\[(-?\d+)\] /gm)].map((m) => Number(m[1]));
  return { seqs, window };
}

export interface ScriptedClaim {
  status: 'covered' | 'not_applicable' | 'missing';
  quote: string;
  /** Only claim it when the window shows this text (default: the quote itself when it is verbatim). */
  visibleWhen?: string;
}

/**
 * A scripted model: judge prompts get the claims of the asked points whose text the window
 * shows; organize prompts get `value: <prefix><seq>` (empty with a null prefix) and a fixed conclusion.
 */
export function speechScript(
  claims: Record<number, ScriptedClaim>,
  organize: { valuePrefix: string | null; conclusion: string } = { valuePrefix: 'value-', conclusion: '结论：同意。' },
) {
  return (request: LlmJsonRequest<unknown>) => {
    const judge = readJudgePrompt(request);
    if (judge) {
      return {
        points: judge.seqs.flatMap((seq) => {
          const claim = claims[seq];
          if (!claim) return [];
          const marker = claim.visibleWhen ?? claim.quote;
          const visible = judge.window.includes(marker) || !marker;
          return [visible ? { seq, status: claim.status, quote: claim.quote } : { seq, status: 'missing', quote: '' }];
        }),
      };
    }
    const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
    const seqs = [...user.matchAll(/^\[(-?\d+)\] /gm)].map((m) => Number(m[1]));
    const value = (seq: number) => (organize.valuePrefix === null ? '' : `${organize.valuePrefix}${seq}`);
    return { items: seqs.map((seq) => ({ seq, value: value(seq) })), conclusion: organize.conclusion };
  };
}
