// @ts-check
// The Status panel: each engine with its queue, the recent traffic, and the AI-3 jobs with their history.
import { ApiError, api, messageOf, redeliverJob } from './api.js';
import { locale, phrases, t, when } from './i18n.js';
import { fill, h, said } from './page.js';

/** @typedef {import('../answers.js').ConsoleStatus} ConsoleStatus */
/** @typedef {import('../../../contract/advice.js').AdviceJobStatus} AdviceJobStatus */

const POLL_MS = 5000;

/** @type {ConsoleStatus | undefined} */
let lastStatus;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let pollTimer;
/** @type {HTMLElement | undefined} */
let shownIn;
const isShown = () => shownIn !== undefined && !shownIn.hidden;

const updatedAt = h('time', { id: 'updated-at' });
const engineRows = h('tbody');
const trafficSummary = h('p', { id: 'traffic-summary' });
const trafficChart = h('div', { id: 'traffic-chart', class: 'chart', role: 'img' });
const errorKinds = h('p', { id: 'error-kinds' });
const jobCounts = h('p', { id: 'job-counts' });
const jobRows = h('tbody');
const jobDetail = h('div', { id: 'job-detail', 'aria-live': 'polite' });

/** A table's head: a column for each phrase, or for `{ text }` (a field's name) that text as it is. */
const head = (/** @type {(import('./i18n.js').Phrase | { text: string })[]} */ columns) =>
  h('thead', {}, h('tr', {}, columns.map((column) =>
    typeof column === 'string' ? said('th', column, { scope: 'col' }) : h('th', { scope: 'col' }, column.text))));

/** @type {import('./page.js').Panel} */
export const statusPanel = {
  id: 'status',
  label: 'status',
  build(panel) {
    shownIn = panel;
    fill(panel,
      h('p', { class: 'note' }, said('span', 'updated'), ' ', updatedAt, ' · ', said('span', 'pollNote')),
      said('h2', 'engines'),
      h('div', { class: 'scroll' }, h('table', { id: 'engines' },
        head(['engine', 'state', 'model', 'hash', 'device', 'threads', 'concurrency', 'running', 'queued', 'meanWait', 'reason']),
        engineRows)),
      said('h2', 'traffic'), trafficSummary, trafficChart, errorKinds,
      said('h2', 'adviceJobs'), jobCounts,
      h('div', { class: 'scroll' }, h('table', { id: 'jobs' }, head([{ text: 'request_id' }, 'state', 'attempts', 'updatedCol', 'actions']), jobRows)),
      jobDetail,
    );
  },
  selected: () => refreshStatus().catch(() => {}),
};

export function stopPolling() {
  clearTimeout(pollTimer);
  pollTimer = undefined;
}

/** Every 5 s while the status panel is shown and the tab is visible; never two requests at once. */
export function schedulePoll() {
  stopPolling();
  pollTimer = setTimeout(async () => {
    if (!document.hidden && isShown()) {
      try {
        await refreshStatus();
      } catch (error) {
        // The next round tries again; a 401 showed the sign-in form instead.
        if (error instanceof ApiError && error.status === 401) return;
      }
    }
    schedulePoll();
  }, POLL_MS);
}

export async function refreshStatus() {
  renderStatus(await api('/console/api/status'));
}

/** When the page comes back into view: the status as it is now, if the panel shows it. */
export function refreshIfShown() {
  if (!document.hidden && lastStatus && isShown()) refreshStatus().catch(() => {});
}

/** The last status again, in the language now chosen. */
export function rerenderStatus() {
  if (lastStatus) renderStatus(lastStatus);
}

const seconds = (/** @type {number} */ value) => (value < 1 ? `${Math.round(value * 1000)} ms` : `${value.toFixed(1)} s`);

/**
 * An engine's or a job's state, coloured by its class.
 * @param {import('../../../contract/engines.js').EngineState | AdviceJobStatus['state']} state
 * @param {import('./page.js').Attributes} [attributes]
 */
export const stateBadge = (state, attributes = {}) => h('span', { ...attributes, class: `state state-${state}` }, state);

/** @param {ConsoleStatus} status */
function renderStatus(status) {
  lastStatus = status;
  updatedAt.textContent = new Date().toLocaleTimeString(locale());
  fill(engineRows,
    Object.entries(status.engines).map(([name, engine]) =>
      h('tr', { 'data-engine': name },
        h('th', { scope: 'row' }, name),
        h('td', {}, stateBadge(engine.state)),
        h('td', {}, engine.model ?? '–'),
        h('td', {}, engine.verified === undefined ? '–' : engine.verified ? t('verified') : t('unverified')),
        h('td', {}, engine.device ?? '–'),
        h('td', { class: 'number' }, String(engine.threads)),
        h('td', { class: 'number' }, String(engine.concurrency)),
        h('td', { class: 'number' }, String(engine.running)),
        h('td', { class: 'number' }, String(engine.queued)),
        h('td', { class: 'number' }, engine.queue_waits ? seconds(engine.mean_queue_wait_seconds) : '–'),
        h('td', {}, engine.reason ?? ''),
      ),
    ),
  );
  renderTraffic(status.traffic);
  renderJobs(status.advice);
}

/** @param {ConsoleStatus['traffic']} traffic */
function renderTraffic(traffic) {
  const requests = traffic.perMinute.reduce((sum, minute) => sum + minute.requests, 0);
  const errors = traffic.perMinute.reduce((sum, minute) => sum + minute.errors, 0);
  const summary = phrases().trafficSummary(requests, errors);
  trafficSummary.textContent = summary;
  const peak = Math.max(1, ...traffic.perMinute.map((minute) => minute.requests));
  trafficChart.setAttribute('aria-label', summary);
  fill(trafficChart,
    traffic.perMinute.map((minute) => {
      const failed = h('span', { class: 'bar-errors' });
      failed.style.height = `${minute.requests ? (minute.errors / minute.requests) * 100 : 0}%`;
      const bar = h('span', { class: 'bar', title: `${when(minute.minute)}: ${minute.requests} / ${minute.errors}` }, failed);
      bar.style.height = `${(minute.requests / peak) * 100}%`;
      return bar;
    }),
  );
  const kinds = Object.entries(traffic.errorKinds);
  errorKinds.textContent = kinds.length ? `${t('errorKinds')}: ${kinds.map(([kind, count]) => `${kind} ${count}`).join(', ')}` : t('noErrors');
}

/** @param {ConsoleStatus['advice']} advice */
function renderJobs(advice) {
  jobCounts.textContent = Object.entries(advice.counts)
    .map(([state, count]) => `${state} ${count}`)
    .join(' · ');
  const rows = advice.recent.map((job) =>
    h('tr', { 'data-request-id': job.request_id },
      h('th', { scope: 'row' }, job.request_id),
      h('td', {}, stateBadge(job.state)),
      h('td', { class: 'number' }, `${job.draft_attempts} / ${job.delivery_attempts}`),
      h('td', {}, when(job.updated_at)),
      h('td', {},
        h('button', { type: 'button', class: 'link', onclick: () => showJob(job) }, t('history')),
        job.state === 'dead' ? h('button', { type: 'button', class: 'redeliver', onclick: () => redeliver(job.request_id) }, t('redeliver')) : null,
      ),
    ),
  );
  fill(jobRows, rows.length ? rows : h('tr', {}, h('td', { colspan: 5 }, t('noJobs'))));
}

/** A job's history, oldest first. */
export const jobHistory = (/** @type {AdviceJobStatus} */ job) =>
  h('ol', { class: 'history' }, job.history.map((event) =>
    h('li', {}, h('time', {}, when(event.at)), ` ${event.event}`, event.detail ? ` — ${event.detail}` : '')));

function showJob(/** @type {AdviceJobStatus} */ job) {
  fill(jobDetail,
    h('h3', {}, `${t('history')}: ${job.request_id}`),
    job.error ? h('p', { class: 'error' }, `${job.error.kind}: ${job.error.message}`) : null,
    jobHistory(job),
  );
}

async function redeliver(/** @type {string} */ requestId) {
  try {
    showJob(await redeliverJob(requestId));
    jobDetail.prepend(h('p', { class: 'ok', role: 'status' }, t('redelivered')));
    await refreshStatus();
  } catch (error) {
    fill(jobDetail, h('p', { class: 'error', role: 'alert' }, messageOf(error)));
  }
}
