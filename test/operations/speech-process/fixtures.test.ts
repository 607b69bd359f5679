import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { speechProcessRequest } from '../../../src/contract/speech.js';
import { fixturePath } from '../../../scripts/lib/paths.js';

/**
 * The labelled speech-process fixtures are data for judging coverage; this only checks that
 * they are well-formed and that their labels agree with their own content.
 */

const TAGS = [
  'complete',
  'incomplete',
  'not_applicable',
  'name_only',
  'paraphrase',
  'unpunctuated',
  'long',
  'similar_names',
  'english',
  'voice_segments',
] as const;
type Tag = (typeof TAGS)[number];

/** Least number of cases carrying each tag. */
const MIN_PER_TAG: Record<Exclude<Tag, 'complete' | 'incomplete'>, number> = {
  not_applicable: 5,
  name_only: 4,
  paraphrase: 4,
  unpunctuated: 4,
  long: 2,
  similar_names: 3,
  english: 6,
  voice_segments: 4,
};
const MIN_CASES = 36;
const MIN_CHINESE_SHARE = 0.7;
const LONG_CHARS = 3000;

const seqList = z.array(z.number().int());

const fixtureCase = z.strictObject({
  id: z.string().regex(/^(zh|en)-[a-z0-9]+(-[a-z0-9]+)*$/),
  lang: z.enum(['zh', 'en']),
  tags: z.array(z.enum(TAGS)).min(1),
  note: z.string().min(1),
  request: speechProcessRequest.omit({ request_id: true }).strict(),
  expected: z.strictObject({ covered: seqList, missing: seqList }),
  evidence: z.record(z.string().regex(/^[1-9][0-9]*$/), z.string().min(1)),
});
type FixtureCase = z.infer<typeof fixtureCase>;

const raw = z
  .array(z.unknown())
  .parse(JSON.parse(readFileSync(fixturePath('speech', 'cases.json'), 'utf8')));
const parsed = raw.map((item) => fixtureCase.safeParse(item));
/** The cases that have the right shape; the others are reported by the shape test. */
const cases: FixtureCase[] = parsed.flatMap((result) => (result.success ? [result.data] : []));

const PUNCTUATION = /\p{P}/u;
const HAN = /\p{Script=Han}/u;
const has = (c: FixtureCase, tag: Tag) => c.tags.includes(tag);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

describe('speech fixture set', () => {
  it('every case has the fixture shape and a valid speech-process request', () => {
    const problems = parsed.flatMap((result, index) => {
      if (result.success) return [];
      const id = z.object({ id: z.string() }).safeParse(raw[index]).data?.id ?? '(no id)';
      return [`case #${index} ${id}: ${z.prettifyError(result.error)}`];
    });
    expect(problems).toEqual([]);
  });

  it(`has at least ${MIN_CASES} cases with unique ids`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(MIN_CASES);
    const ids = cases.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it(`is at least ${MIN_CHINESE_SHARE * 100}% Chinese`, () => {
    const chinese = cases.filter((c) => c.lang === 'zh').length;
    expect(chinese / cases.length).toBeGreaterThanOrEqual(MIN_CHINESE_SHARE);
  });

  it('has enough cases of each category', () => {
    const counts = Object.fromEntries(TAGS.map((tag) => [tag, cases.filter((c) => has(c, tag)).length]));
    for (const [tag, least] of Object.entries(MIN_PER_TAG)) {
      expect(counts[tag], tag).toBeGreaterThanOrEqual(least);
    }
  });

  it('mixes complete and incomplete cases about evenly', () => {
    const complete = cases.filter((c) => has(c, 'complete')).length;
    expect(complete / cases.length).toBeGreaterThanOrEqual(0.4);
    expect(complete / cases.length).toBeLessThanOrEqual(0.6);
  });

  it('holds nothing that looks like a phone or identity number', () => {
    for (const c of cases) {
      expect(JSON.stringify(c), c.id).not.toMatch(/\d{11,}/);
    }
  });
});

describe.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
  const { points, speech_text: speech, voice_segments: segments } = c.request;
  const seqs = points.map((p) => p.seq);
  const { covered, missing } = c.expected;

  it('has 2 to 6 points with unique seqs', () => {
    expect(points.length).toBeGreaterThanOrEqual(2);
    expect(points.length).toBeLessThanOrEqual(6);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('splits the points exactly into covered and missing', () => {
    expect(new Set(covered).size, 'duplicate in covered').toBe(covered.length);
    expect(new Set(missing).size, 'duplicate in missing').toBe(missing.length);
    expect(covered.filter((seq) => missing.includes(seq)), 'both covered and missing').toEqual([]);
    expect(sorted([...covered, ...missing])).toEqual(sorted(seqs));
  });

  it('quotes evidence verbatim from the speech, for exactly the covered points', () => {
    expect(sorted(Object.keys(c.evidence).map(Number))).toEqual(sorted(covered));
    for (const [seq, span] of Object.entries(c.evidence)) {
      expect(speech.includes(span), `evidence ${seq} not in speech_text: ${span}`).toBe(true);
    }
  });

  it('has tags that agree with its content', () => {
    expect(new Set(c.tags).size).toBe(c.tags.length);
    expect(has(c, 'complete')).toBe(missing.length === 0);
    expect(has(c, 'incomplete')).toBe(missing.length > 0);
    expect(has(c, 'english')).toBe(c.lang === 'en');
    expect(has(c, 'voice_segments')).toBe(segments !== undefined);
    expect(has(c, 'long')).toBe(speech.length > LONG_CHARS);
    if (has(c, 'unpunctuated')) expect(speech).not.toMatch(PUNCTUATION);
    if (has(c, 'name_only')) expect(missing.length).toBeGreaterThan(0);
  });

  it('is written in the language it claims', () => {
    expect(c.id.startsWith(`${c.lang}-`)).toBe(true);
    if (c.lang === 'zh') expect(speech).toMatch(HAN);
    else expect(`${speech}${points.map((p) => p.name).join('')}${c.request.cancer_type}`).not.toMatch(HAN);
  });

  if (segments === undefined) return;
  it('has voice segments in order, each quoted verbatim from the speech', () => {
    expect(segments.length).toBeGreaterThan(0);
    let from = 0;
    for (const segment of segments) {
      expect(segment.start_ms).toBeGreaterThanOrEqual(0);
      expect(segment.end_ms).toBeGreaterThanOrEqual(segment.start_ms);
      expect(segment.voice_url).toMatch(/^https?:\/\//);
      expect(segment.text.length).toBeGreaterThan(0);
      const at = speech.indexOf(segment.text, from);
      expect(at, `segment out of order or not in speech_text: ${segment.text}`).toBeGreaterThanOrEqual(0);
      from = at + segment.text.length;
    }
  });
});
