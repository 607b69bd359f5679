import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ChatMessage } from '../../engines/types.js';
import type { RequiredPoint } from '../../contract/common.js';

/**
 * Lengths the grammar enforces on the model's strings (node-llama-cpp compiles bounds up to
 * 1,000). Answer token budgets are derived from them, so even a model that writes every string
 * to its limit finishes its JSON.
 */
export const MAX_QUOTE_CHARS = 150;
export const MAX_VALUE_CHARS = 200;
export const MAX_CONCLUSION_CHARS = 600;

const JUDGE_SYSTEM = `你是多学科会诊（MDT）记录助手。任务：判断一位医生的发言是否覆盖了每一个要求的要点。
只判断是否覆盖，不判断内容是否正确、是否合理。
对每个要点给出 status：
- "covered"：发言对该要点给出了实际内容。
- "not_applicable"：医生明确表示该要点不适用、本科室无补充、暂无意见或无需处理；这也算覆盖。
- "missing"：发言没有涉及该要点，或只提到要点名称而没有任何实际内容。
quote：status 为 covered 或 not_applicable 时，逐字摘录发言中支持该判断的原文片段（照抄原文，不改写，不超过${MAX_QUOTE_CHARS}个字）；status 为 missing 时 quote 为空字符串。
按要点编号作为键，每个要点输出一条。发言可能是英文，也可能没有标点；照抄时保持原文语言。
(English: judge coverage only, never correctness; "not applicable / nothing to add" counts as covered; quote the speech verbatim.)`;

const ORGANIZE_SYSTEM = `你是多学科会诊（MDT）记录助手。下面是一位医生发言中各要点的原文证据。
为每个要点写出简洁、结构化的内容 value：忠实于原文证据，不添加原文没有的信息，不做诊断或评价；医生表示不适用或无补充的要点，写明这一点。
values 以要点编号为键。如要求 conclusion，再用一两句话概括这位医生的整体意见。使用与原文相同的语言。
(English: one faithful, concise value per point from its evidence only; a conclusion when asked; answer in the speech's language.)`;

const pointKey = (point: RequiredPoint) => String(point.seq);

/**
 * One property per asked point, keyed by its seq: the grammar then makes the model answer each
 * point exactly once and in order, with no numbers to get wrong (a grammar's integers can
 * carry exponents that are not integers at all).
 */
export function judgeAnswer(points: readonly RequiredPoint[]) {
  const verdict = z.object({ status: z.enum(['covered', 'not_applicable', 'missing']), quote: z.string().max(MAX_QUOTE_CHARS) });
  return z.object(Object.fromEntries(points.map((p) => [pointKey(p), verdict])));
}
export type JudgeVerdict = { seq: number; status: 'covered' | 'not_applicable' | 'missing'; quote: string };

export function judgeVerdicts(points: readonly RequiredPoint[], answer: Record<string, { status: JudgeVerdict['status']; quote: string }>): JudgeVerdict[] {
  return points.flatMap((p) => {
    const verdict = answer[pointKey(p)];
    return verdict ? [{ seq: p.seq, ...verdict }] : [];
  });
}

export interface OrganizeAnswer {
  values: Record<string, string>;
  conclusion?: string;
}

export function organizeAnswer(points: readonly RequiredPoint[], withConclusion: boolean): z.ZodType<OrganizeAnswer> {
  const values = z.object(Object.fromEntries(points.map((p) => [pointKey(p), z.string().max(MAX_VALUE_CHARS)])));
  return withConclusion ? z.object({ values, conclusion: z.string().max(MAX_CONCLUSION_CHARS) }) : z.object({ values });
}

export function organizedValue(point: RequiredPoint, answer: OrganizeAnswer): string {
  return (answer.values[pointKey(point)] ?? '').trim();
}

/** Identifies the prompts: a change to any template changes processor_version.prompt and so every artifact_key. */
export const PROMPT_VERSION = `speech-v1@${createHash('sha256')
  .update([JUDGE_SYSTEM, ORGANIZE_SYSTEM, MAX_QUOTE_CHARS, MAX_VALUE_CHARS].join('\u0000'))
  .digest('hex')
  .slice(0, 12)}`;

export interface SpeechSubject {
  cancer_type: string;
  standard_department_code: string;
}

const pointLines = (points: readonly RequiredPoint[]) => points.map((p) => `[${p.seq}] ${p.name}`).join('\n');

export function judgeMessages(subject: SpeechSubject, points: readonly RequiredPoint[], speech: string, part: string): ChatMessage[] {
  return [
    { role: 'system', content: JUDGE_SYSTEM },
    {
      role: 'user',
      content: `癌种：${subject.cancer_type}\n科室：${subject.standard_department_code}\n要点：\n${pointLines(points)}\n医生发言${part}：\n<<<\n${speech}\n>>>`,
    },
  ];
}

/** The judge prompt without the speech, to size the windows the speech is cut into. */
export function judgeOverhead(subject: SpeechSubject, points: readonly RequiredPoint[]): string {
  return judgeMessages(subject, points, '', '（第1/1段）')
    .map((m) => m.content)
    .join('\n');
}

export interface PointEvidence {
  point: RequiredPoint;
  sourceText: string;
  notApplicable: boolean;
}

export function organizeMessages(subject: SpeechSubject, evidence: readonly PointEvidence[], withConclusion: boolean): ChatMessage[] {
  const lines = evidence
    .map((e) => `[${e.point.seq}] ${e.point.name}${e.notApplicable ? '（医生表示不适用/无补充）' : ''}\n原文：${e.sourceText}`)
    .join('\n');
  const ask = withConclusion ? '请给出每个要点的 value 和 conclusion。' : '请给出每个要点的 value。';
  return [
    { role: 'system', content: ORGANIZE_SYSTEM },
    { role: 'user', content: `癌种：${subject.cancer_type}\n科室：${subject.standard_department_code}\n${lines}\n${ask}` },
  ];
}

export const conclusionAnswer = z.object({ conclusion: z.string().max(MAX_CONCLUSION_CHARS) });

export function conclusionMessages(subject: SpeechSubject, values: ReadonlyArray<{ point: string; value: string }>): ChatMessage[] {
  const lines = values.map((v) => `${v.point}：${v.value}`).join('\n');
  return [
    { role: 'system', content: ORGANIZE_SYSTEM },
    {
      role: 'user',
      content: `癌种：${subject.cancer_type}\n科室：${subject.standard_department_code}\n已整理的要点：\n${lines}\n请给出 conclusion。`,
    },
  ];
}
