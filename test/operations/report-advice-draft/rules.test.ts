import { describe, expect, it } from 'vitest';
import type { ReportAdviceDraftRequest } from '../../../src/contract/advice.js';
import { adviceDraft } from '../../../src/contract/advice.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { composeDraft, hasAdvice, usableAnswer } from '../../../src/operations/report-advice-draft/compose.js';
import { condenseRequest, freeTextLength, shareCharacters } from '../../../src/operations/report-advice-draft/condense.js';
import { languageOf } from '../../../src/operations/report-advice-draft/draft.js';
import { adviceAnswer, answerTokenBudget, departmentNames } from '../../../src/operations/report-advice-draft/prompts.js';
import { nextAttempt } from '../../../src/operations/report-advice-draft/callbacks/delivery.js';
import { detectLanguage, isWrittenIn, looksDegenerate } from '../../../src/operations/text/language.js';
import { characterBoundary, cutAtSentence } from '../../../src/operations/text/sentences.js';

const request = (dept_opinions: ReportAdviceDraftRequest['dept_opinions']): ReportAdviceDraftRequest => ({
  request_id: 'r',
  cancer_type: '肺癌',
  case_summary: { diagnosis: '右肺腺癌', key_question: '是否手术' },
  dept_opinions,
});

describe('cutAtSentence', () => {
  it('leaves a short text alone', () => {
    expect(cutAtSentence('建议手术。', 10, '……')).toBe('建议手术。');
  });

  it('cuts after the last sentence end that fits, counting the marker', () => {
    const cut = cutAtSentence('建议手术。术后化疗。定期复查随访。', 14, '……');
    expect(cut).toBe('建议手术。术后化疗。……');
    expect(cut.length).toBeLessThanOrEqual(14);
  });

  it('cuts English after a period followed by a space', () => {
    expect(cutAtSentence('Surgery is advised first. Then chemotherapy for four cycles.', 40)).toBe('Surgery is advised first.');
  });

  it('falls back to a clause break, then a character boundary, when no sentence ends in the second half', () => {
    expect(cutAtSentence('建议手术，术后辅助化疗四个周期', 8)).toBe('建议手术，');
    expect(cutAtSentence('一二三四五六七八九十', 6)).toBe('一二三四五六');
  });

  it('never splits a character written as two UTF-16 units', () => {
    const text = '𠀀'.repeat(10); // each is a surrogate pair
    const cut = cutAtSentence(text, 7);
    expect(cut).toBe('𠀀'.repeat(3));
    expect(characterBoundary(text, 7)).toBe(6);
    expect(characterBoundary(text, 6)).toBe(6);
  });
});

describe('language', () => {
  it.each([
    ['建议先行新辅助治疗', 'zh'],
    ['EGFR 19del 突变，建议 osimertinib 靶向治疗', 'zh'],
    ['cT2aN2M0，PD-L1 TPS 60%，建议免疫治疗', 'zh'],
    ['Neoadjuvant therapy first, then reassess.', 'en'],
    ['Dr. 张 recommends surgery after induction.', 'en'],
    ['', 'en'],
  ] as const)('%s reads as %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('digits and punctuation alone are in no language', () => {
    expect(isWrittenIn('1. 2. 3.', 'zh')).toBe(false);
    expect(isWrittenIn('1. 2. 3.', 'en')).toBe(false);
  });

  it('takes a request’s language from its opinions, not from department names', () => {
    const english = request([{ dept: '胸外科', content: 'Surgery after neoadjuvant therapy.', supplements: [] }]);
    expect(languageOf({ ...english, case_summary: { diagnosis: 'Adenocarcinoma', key_question: 'Surgery?' } })).toBe('en');
  });

  it.each([
    ['meldmeldmeldmeldmeldmeldmeldmeldmeldmeld', true],
    ['好'.repeat(10), true],
    ['。'.repeat(12), true],
    ['建议手术，术后化疗，定期复查。', false],
    ['白细胞 3.86，血红蛋白 122，血小板 171', false],
  ] as const)('looksDegenerate(%s) is %s', (text, expected) => {
    expect(looksDegenerate(text)).toBe(expected);
  });
});

describe('shareCharacters', () => {
  it('gives short texts all they need and splits the rest evenly', () => {
    expect(shareCharacters([10, 1000, 5000], 1010)).toEqual([10, 500, 500]);
  });

  it('gives everything when the budget covers it', () => {
    expect(shareCharacters([3, 4], 100)).toEqual([3, 4]);
  });

  it('never exceeds the budget, and a negative budget gives nothing', () => {
    const shares = shareCharacters([700, 800, 900, 1000], 1001);
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1001);
    expect(shareCharacters([5, 5], -3)).toEqual([0, 0]);
  });
});

describe('condenseRequest', () => {
  it('cuts every free text to its share, keeping names and doctors whole', () => {
    const long = '建议手术治疗。'.repeat(200);
    const condensed = condenseRequest(
      request([{ dept: '胸外科', content: long, supplements: [{ doctor: '张医生', content: long }] }]),
      600,
      '……',
    );
    expect(freeTextLength(condensed)).toBeLessThanOrEqual(600);
    expect(condensed.dept_opinions[0]!.dept).toBe('胸外科');
    expect(condensed.dept_opinions[0]!.supplements[0]!.doctor).toBe('张医生');
    expect(condensed.dept_opinions[0]!.content).toMatch(/。……$/);
    expect(condensed.case_summary.diagnosis).toBe('右肺腺癌');
  });
});

const ANSWER = {
  overall: '综合意见。',
  recommendations: [{ advice: '建议手术。', departments: ['胸外科', '胸外科'] }],
  open_questions: '',
};

describe('usableAnswer', () => {
  it('drops text in the wrong language or in a loop, and repeated departments', () => {
    const usable = usableAnswer(
      {
        overall: 'Surgery is recommended.',
        recommendations: [
          { advice: '好'.repeat(30), departments: [] },
          { advice: '建议手术。', departments: ['胸外科', '胸外科'] },
        ],
        open_questions: '   ',
      },
      'zh',
    );
    expect(usable).toEqual({ overall: '', recommendations: [{ advice: '建议手术。', departments: ['胸外科'] }], open_questions: '' });
    expect(hasAdvice(usable)).toBe(true);
    expect(hasAdvice({ overall: '', recommendations: [], open_questions: '待定' })).toBe(false);
  });
});

describe('composeDraft', () => {
  it('always yields a draft the platform accepts, however large the request', () => {
    const huge = 'X'.repeat(LIMITS.opinionChars); // no sentence ends at all
    const depts = Array.from({ length: LIMITS.deptOpinions }, (_, i) => ({
      dept: `科室${i}`,
      content: huge,
      supplements: Array.from({ length: 3 }, (_, j) => ({ doctor: `医生${j}`, content: huge })),
    }));
    const big = { ...request(depts), case_summary: { diagnosis: huge, key_question: huge } };
    const draft = composeDraft(big, usableAnswer(ANSWER, 'zh'), 'zh');
    expect(adviceDraft.safeParse(draft).success).toBe(true);
    expect(draft.length).toBeLessThanOrEqual(LIMITS.adviceDraftChars);
    for (const dept of depts) expect(draft).toContain(`【${dept.dept}】`);
  });

  it('numbers only the sections it has', () => {
    const draft = composeDraft(request([{ dept: '胸外科', content: '手术。', supplements: [] }]), usableAnswer(ANSWER, 'zh'), 'zh');
    expect(draft).toContain('一、综合意见\n综合意见。');
    expect(draft).toContain('二、治疗建议\n1. 建议手术。（依据：胸外科）');
    expect(draft).toContain('三、各科室意见（原文摘录）\n【胸外科】手术。');
    expect(draft).not.toContain('待明确问题');
  });
});

describe('answer schema and token budget', () => {
  it('allows only departments that gave an opinion, and bounds every string', () => {
    const schema = adviceAnswer(['胸外科', '肿瘤内科']);
    expect(schema.safeParse(ANSWER).success).toBe(true);
    expect(schema.safeParse({ ...ANSWER, recommendations: [{ advice: 'x', departments: ['放疗科'] }] }).success).toBe(false);
    expect(schema.safeParse({ ...ANSWER, overall: '字'.repeat(401) }).success).toBe(false);
  });

  it('budgets one token per character of every bounded string, and grows with department names', () => {
    const short = answerTokenBudget(['胸外科']);
    expect(short).toBeGreaterThan(400 + 5 * 160 + 200);
    expect(answerTokenBudget(['胸外科', '一个名字非常非常长的多学科联合门诊科室'])).toBeGreaterThan(short);
  });

  it('lists each department once, in request order', () => {
    const opinion = (dept: string) => ({ dept, content: '', supplements: [] });
    expect(departmentNames(request([opinion('B'), opinion('A'), opinion('B')]))).toEqual(['B', 'A']);
  });
});

describe('nextAttempt', () => {
  const policy = { baseDelayMs: 1_000, maxDelayMs: 60_000, horizonMs: 3_600_000 };

  it('doubles the delay each attempt, with jitter between half and all of it', () => {
    expect(nextAttempt(1, 0, 0, policy, () => 0)).toEqual({ retryAt: 500 });
    expect(nextAttempt(1, 0, 0, policy, () => 1)).toEqual({ retryAt: 1_000 });
    expect(nextAttempt(4, 0, 0, policy, () => 1)).toEqual({ retryAt: 8_000 });
  });

  it('caps the delay', () => {
    expect(nextAttempt(30, 0, 0, policy, () => 1)).toEqual({ retryAt: 60_000 });
    expect(nextAttempt(5_000, 0, 0, policy, () => 1)).toEqual({ retryAt: 60_000 });
  });

  it('makes a last attempt exactly at the horizon, then gives up', () => {
    expect(nextAttempt(20, 0, 3_590_000, policy, () => 1)).toEqual({ retryAt: 3_600_000 });
    expect(nextAttempt(21, 0, 3_600_000, policy, () => 1)).toEqual({ giveUp: true });
  });
});
