// @ts-check
// report-advice-draft (AI-3): submits a job, follows it to its callback, and shows the draft the platform received.
import { adviceJob, api, callOperation, requestId } from './api.js';
import { t } from './i18n.js';
import { fill, h } from './page.js';
import { jobHistory, stateBadge } from './status-panel.js';
import { formPanel } from './try-it.js';

/** @typedef {import('../answers.js').ReceivedReport} ReceivedReport */

/** @type {ReadonlySet<import('../../../contract/advice.js').AdviceJobState>} */
const FINISHED_JOB_STATES = new Set(['delivered', 'dead']);
const ADVICE_FOLLOW_MS = 2000;
const ADVICE_FOLLOW_LIMIT_MS = 5 * 60 * 1000;

/** The draft as the platform stored it, when the callback target is the reference receiver; nothing otherwise. */
async function receivedDraft(/** @type {string} */ id) {
  try {
    /** @type {ReceivedReport} */
    const report = await api(`/console/api/advice/${encodeURIComponent(id)}/received`);
    return [h('h3', {}, t('receivedDraft')), h('pre', { class: 'draft', 'data-field': 'draft', tabindex: 0 }, report.ai_advice_ref ?? '')];
  } catch {
    return null;
  }
}

export const reportAdviceDraftPanel = formPanel({
  id: 'report-advice-draft',
  heading: 'adviceTitle',
  fields: [
    { name: 'cancer_type', label: 'cancerType', value: '肺癌' },
    { name: 'diagnosis', label: 'diagnosis' },
    { name: 'key_question', label: 'question' },
    { name: 'dept', label: 'dept' },
    { name: 'opinion', label: 'opinion', rows: 3 },
  ],
  async run(fields, result) {
    const id = requestId();
    await callOperation('report-advice-draft', {
      request_id: id,
      cancer_type: fields.cancer_type,
      case_summary: { diagnosis: fields.diagnosis, key_question: fields.key_question },
      dept_opinions: [{ dept: fields.dept, content: fields.opinion, supplements: [] }],
    });
    fill(result, h('p', { role: 'status' }, t('accepted')));
    const stopAt = Date.now() + ADVICE_FOLLOW_LIMIT_MS;
    for (;;) {
      const job = await adviceJob(id);
      const view = [h('p', {}, `request_id ${job.request_id}: `, stateBadge(job.state, { 'data-field': 'state' })), jobHistory(job)];
      if (job.state === 'delivered') return [...view, await receivedDraft(id)];
      if (FINISHED_JOB_STATES.has(job.state)) return view;
      // A platform that is down keeps a job delivering for hours: the Status panel follows it from here.
      if (Date.now() > stopAt) return [...view, h('p', { class: 'note' }, t('stillFollowing'))];
      fill(result, view);
      await new Promise((resolve) => setTimeout(resolve, ADVICE_FOLLOW_MS));
    }
  },
});
