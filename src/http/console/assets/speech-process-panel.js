// @ts-check
// speech-process (AI-1 & AI-2): each required point covered or missing, and the evidence marked in the speech.
import { callOperation, requestId } from './api.js';
import { t } from './i18n.js';
import { h } from './page.js';
import { formPanel } from './try-it.js';

/** The speech with every evidence span marked, in the order they occur. */
function markedSpeech(/** @type {string} */ speech, /** @type {string[]} */ spans) {
  const found = spans
    .filter(Boolean)
    .map((span) => ({ start: speech.indexOf(span), span }))
    .filter(({ start }) => start >= 0)
    .sort((a, b) => a.start - b.start);
  const parts = [];
  let at = 0;
  for (const { start, span } of found) {
    if (start < at) continue;
    parts.push(speech.slice(at, start), h('mark', {}, span));
    at = start + span.length;
  }
  parts.push(speech.slice(at));
  return h('p', { class: 'speech' }, parts);
}

export const speechProcessPanel = formPanel({
  id: 'speech-process',
  heading: 'speechTitle',
  fields: [
    { name: 'cancer_type', label: 'cancerType', value: '肺癌' },
    { name: 'department', label: 'department', value: 'RAD' },
    { name: 'points', label: 'points', rows: 3 },
    { name: 'speech_text', label: 'speechText', rows: 5 },
  ],
  async run(fields) {
    const points = fields.points.split('\n').map((line) => line.trim()).filter(Boolean).map((name, index) => ({ seq: index + 1, name }));
    const speech = fields.speech_text;
    const response = await callOperation('speech-process', {
      request_id: requestId(), cancer_type: fields.cancer_type, standard_department_code: fields.department, points, speech_text: speech,
    });
    const covered = new Set(response.covered.map((point) => point.seq));
    const structured = response.organized?.structured ?? [];
    return [
      h('p', { class: response.is_complete ? 'ok' : 'error', 'data-field': 'complete' }, response.is_complete ? t('complete') : t('incomplete')),
      h('ul', { class: 'points' }, points.map((point) => {
        const organized = structured.find((item) => item.seq === point.seq);
        return h('li', { 'data-seq': point.seq, class: covered.has(point.seq) ? 'covered' : 'missing' },
          h('strong', {}, covered.has(point.seq) ? t('covered') : t('missing')), ` ${point.name}`,
          organized?.value ? ` — ${organized.value}` : '');
      })),
      markedSpeech(speech, structured.map((item) => item.source_text)),
      response.organized ? h('p', {}, h('strong', {}, `${t('conclusion')}: `), response.organized.conclusion) : null,
    ];
  },
});
