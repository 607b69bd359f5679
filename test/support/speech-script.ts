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
 * shows (the others are missing); organize prompts get `<prefix><seq>` values (empty with a
 * null prefix) and a fixed conclusion.
 */
export function speechScript(
  claims: Record<number, ScriptedClaim>,
  organize: { valuePrefix: string | null; conclusion: string } = { valuePrefix: 'value-', conclusion: '结论：同意。' },
) {
  return (request: LlmJsonRequest<unknown>) => {
    const judge = readJudgePrompt(request);
    if (judge) {
      return Object.fromEntries(
        judge.seqs.map((seq) => {
          const claim = claims[seq] ?? { status: 'missing', quote: '' };
          const marker = claim.visibleWhen ?? claim.quote;
          const visible = judge.window.includes(marker) || !marker;
          return [String(seq), visible ? { status: claim.status, quote: claim.quote } : { status: 'missing', quote: '' }];
        }),
      );
    }
    const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
    const seqs = [...user.matchAll(/^\[(-?\d+)\] /gm)].map((m) => Number(m[1]));
    const value = (seq: number) => (organize.valuePrefix === null ? '' : `${organize.valuePrefix}${seq}`);
    const values = Object.fromEntries(seqs.map((seq) => [String(seq), value(seq)]));
    return { values, conclusion: organize.conclusion }; // keys a schema does not ask for are dropped by it
  };
}
