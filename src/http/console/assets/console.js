// The operator's console: plain DOM, no framework, nothing loaded from elsewhere.
// Text from the API is only ever set as textContent, never parsed as HTML.

const TOKEN_KEY = 'mdt-console-token';
const LANGUAGE_KEY = 'mdt-console-language';
const POLL_MS = 5000;

const TEXT = {
  en: {
    title: 'MDT AI gateway · console', language: 'Language', signOut: 'Sign out', signInTitle: 'Sign in',
    signInHelp: "Enter one of the gateway's API tokens (API_TOKENS). It is kept in this tab only.",
    token: 'API token', signIn: 'Sign in', tokenRefused: 'The gateway refused this token.', panels: 'Panels',
    status: 'Status', updated: 'Updated', pollNote: 'refreshes every 5 s while this tab is visible',
    engines: 'Engines', engine: 'Engine', state: 'State', model: 'Model', hash: 'SHA-256', device: 'Device',
    threads: 'Threads', concurrency: 'Concurrency', running: 'Running', queued: 'Queued', meanWait: 'Mean queue wait',
    reason: 'Reason', verified: 'verified', unverified: 'not verified', traffic: 'Requests, last 15 minutes',
    trafficSummary: (r, e) => `${r} requests, ${e} errors`, errorKinds: 'Error kinds', noErrors: 'No errors.',
    adviceJobs: 'AI-3 jobs', attempts: 'Draft / delivery attempts', updatedCol: 'Updated', actions: 'Actions',
    history: 'History', redeliver: 'Redeliver', redelivered: 'Redelivery requested.', noJobs: 'No jobs yet.',
    cfpTitle: 'De-identify a case file', ocrTitle: 'Read a case file', fileLabel: 'Image or PDF', run: 'Run',
    working: 'Working…', original: 'Original', deidentified: 'De-identified', category: 'Category', pages: 'Pages',
    redactions: 'Redaction boxes', page: (n) => `Page ${n}`, withheld: 'Withheld', failed: 'Failed',
    pageOf: (n, total) => `Page ${n} of ${total}`, noRedactions: 'No redaction boxes',
    notShown: (n) => `Only the first ${n} pages are shown.`,
    patientInfo: 'Patient information', linesRead: 'Lines read', text: 'Text', name: 'Name', age: 'Age', cancer_type: 'Cancer type', stage: 'Stage',
    notFound: 'not found', unreachable: 'The gateway did not answer.',
    speechTitle: "Judge a doctor's speech against the required points", cancerType: 'Cancer type',
    department: 'Department code', points: 'Required points, one a line', speechText: 'Speech text',
    complete: 'Complete', incomplete: 'Incomplete', covered: 'covered', missing: 'missing', conclusion: 'Conclusion',
    adviceTitle: 'Draft report advice (AI-3), then follow the job to its callback', diagnosis: 'Diagnosis',
    question: 'Key question', dept: 'Department', opinion: 'Its opinion', accepted: 'Accepted; following the job…',
    receivedDraft: 'The draft the platform received', stillFollowing: 'Not delivered yet; the Status panel shows the job from here.', asrTitle: 'Transcribe a recording', recording: 'Recording', transcript: 'Transcript', segments: 'Segments (click to play from there)',
  },
  zh: {
    title: 'MDT AI 网关 · 控制台', language: '语言', signOut: '退出', signInTitle: '登录',
    signInHelp: '输入网关的一个 API 令牌（API_TOKENS）。令牌只保存在本标签页中。',
    token: 'API 令牌', signIn: '登录', tokenRefused: '网关拒绝了这个令牌。', panels: '面板',
    status: '状态', updated: '更新于', pollNote: '本页可见时每 5 秒刷新',
    engines: '引擎', engine: '引擎', state: '状态', model: '模型', hash: 'SHA-256', device: '设备',
    threads: '线程', concurrency: '并发', running: '运行中', queued: '排队', meanWait: '平均排队时间',
    reason: '原因', verified: '已校验', unverified: '未校验', traffic: '最近 15 分钟的请求',
    trafficSummary: (r, e) => `${r} 个请求，${e} 个错误`, errorKinds: '错误类型', noErrors: '没有错误。',
    adviceJobs: 'AI-3 任务', attempts: '生成 / 投递次数', updatedCol: '更新时间', actions: '操作',
    history: '历史', redeliver: '重新投递', redelivered: '已请求重新投递。', noJobs: '暂无任务。',
    cfpTitle: '病历文件脱敏', ocrTitle: '病历文件识别', fileLabel: '图片或 PDF', run: '运行',
    working: '处理中…', original: '原件', deidentified: '脱敏后', category: '类别', pages: '页数',
    redactions: '遮盖框', page: (n) => `第 ${n} 页`, withheld: '已扣留', failed: '失败',
    pageOf: (n, total) => `第 ${n} 页，共 ${total} 页`, noRedactions: '没有遮盖框',
    notShown: (n) => `只显示前 ${n} 页。`,
    patientInfo: '患者信息', linesRead: '识别出的行', text: '文本', name: '姓名', age: '年龄', cancer_type: '癌种', stage: '分期',
    notFound: '未识别', unreachable: '网关没有应答。',
    speechTitle: '按必答要点评判医生发言', cancerType: '癌种', department: '科室代码', points: '必答要点，每行一个',
    speechText: '发言文本', complete: '完整', incomplete: '不完整', covered: '已覆盖', missing: '缺失', conclusion: '结论',
    adviceTitle: '生成报告建议草稿（AI-3），并跟踪任务直到回调', diagnosis: '诊断', question: '关键问题', dept: '科室',
    opinion: '科室意见', accepted: '已受理，正在跟踪任务…',
    receivedDraft: '平台收到的草稿', stillFollowing: '尚未投递；之后请在“状态”面板查看该任务。', asrTitle: '录音转写', recording: '录音', transcript: '转写文本', segments: '分段（点击从该处播放）',
  },
};

let language = sessionStorage.getItem(LANGUAGE_KEY) ?? (navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en');
const t = (key) => TEXT[language][key] ?? TEXT.en[key] ?? key;
const $ = (selector, root = document) => root.querySelector(selector);

/** An element with attributes and children (strings become text nodes). */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) if (child !== null && child !== undefined) element.append(child);
  return element;
}

/** Replaces an element's children; null and undefined stand for nothing (replaceChildren would write "null"). */
function fill(element, ...children) {
  element.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined));
}

function applyLanguage() {
  document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
  document.title = t('title');
  for (const element of document.querySelectorAll('[data-i18n]')) element.textContent = t(element.dataset.i18n);
  for (const element of document.querySelectorAll('[data-i18n-label]')) element.setAttribute('aria-label', t(element.dataset.i18nLabel));
  $('#language').value = language;
  if (lastStatus) renderStatus(lastStatus);
}

// ---- API ----

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.kind = body?.error?.kind ?? 'http';
  }
}

/** The gateway's answer with the tab's token; an error body becomes an ApiError. */
async function request(path, { method = 'GET', json, body, contentType } = {}) {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  if (contentType) headers['content-type'] = contentType;
  const response = await fetch(path, { method, headers, body: json !== undefined ? JSON.stringify(json) : body });
  if (response.status === 401) showSignIn();
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => undefined));
  return response;
}

async function api(path, options) {
  const text = await (await request(path, options)).text();
  return text ? JSON.parse(text) : undefined;
}

// ---- sign-in ----

function showSignIn(message = '') {
  stopPolling();
  $('#app').hidden = true;
  $('#sign-out').hidden = true;
  $('#sign-in').hidden = false;
  $('#sign-in-error').textContent = message;
  $('#token').focus();
}

async function enter() {
  try {
    const status = await api('/console/api/status');
    $('#sign-in').hidden = true;
    $('#app').hidden = false;
    $('#sign-out').hidden = !sessionStorage.getItem(TOKEN_KEY);
    renderStatus(status);
    schedulePoll();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      const hadToken = sessionStorage.getItem(TOKEN_KEY) !== null;
      sessionStorage.removeItem(TOKEN_KEY);
      showSignIn(hadToken ? t('tokenRefused') : '');
    } else showSignIn(t('unreachable'));
  }
}

// ---- status ----

let lastStatus;
let pollTimer;

function stopPolling() {
  clearTimeout(pollTimer);
  pollTimer = undefined;
}

/** Every 5 s while the status panel is shown and the tab is visible; never two requests at once. */
function schedulePoll() {
  stopPolling();
  pollTimer = setTimeout(async () => {
    if (!document.hidden && !$('#panel-status').hidden) {
      try {
        renderStatus(await api('/console/api/status'));
      } catch {
        // The next round tries again; a 401 already showed the sign-in form.
        if (!$('#sign-in').hidden) return;
      }
    }
    schedulePoll();
  }, POLL_MS);
}

async function refreshStatus() {
  renderStatus(await api('/console/api/status'));
}

const seconds = (value) => (value < 1 ? `${Math.round(value * 1000)} ms` : `${value.toFixed(1)} s`);
const when = (iso) => (iso ? new Date(iso).toLocaleString(language === 'zh' ? 'zh-CN' : 'en-GB') : '');

function renderStatus(status) {
  lastStatus = status;
  $('#updated-at').textContent = new Date().toLocaleTimeString(language === 'zh' ? 'zh-CN' : 'en-GB');
  $('#engines tbody').replaceChildren(
    ...Object.entries(status.engines).map(([name, engine]) =>
      h('tr', { 'data-engine': name },
        h('th', { scope: 'row' }, name),
        h('td', {}, h('span', { class: `state state-${engine.state}` }, engine.state)),
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

function renderTraffic(traffic) {
  const requests = traffic.perMinute.reduce((sum, m) => sum + m.requests, 0);
  const errors = traffic.perMinute.reduce((sum, m) => sum + m.errors, 0);
  $('#traffic-summary').textContent = TEXT[language].trafficSummary(requests, errors);
  const peak = Math.max(1, ...traffic.perMinute.map((m) => m.requests));
  const chart = $('#traffic-chart');
  chart.setAttribute('aria-label', TEXT[language].trafficSummary(requests, errors));
  chart.replaceChildren(
    ...traffic.perMinute.map((minute) => {
      const bar = h('span', { class: 'bar', title: `${when(minute.minute)}: ${minute.requests} / ${minute.errors}` });
      bar.style.height = `${(minute.requests / peak) * 100}%`;
      const failed = h('span', { class: 'bar-errors' });
      failed.style.height = `${minute.requests ? (minute.errors / minute.requests) * 100 : 0}%`;
      bar.append(failed);
      return bar;
    }),
  );
  const kinds = Object.entries(traffic.errorKinds);
  $('#error-kinds').textContent = kinds.length
    ? `${t('errorKinds')}: ${kinds.map(([kind, count]) => `${kind} ${count}`).join(', ')}`
    : t('noErrors');
}

function renderJobs(advice) {
  $('#job-counts').textContent = Object.entries(advice.counts)
    .map(([state, count]) => `${state} ${count}`)
    .join(' · ');
  const rows = advice.recent.map((job) =>
    h('tr', { 'data-request-id': job.request_id },
      h('th', { scope: 'row' }, job.request_id),
      h('td', {}, h('span', { class: `state state-${job.state}` }, job.state)),
      h('td', { class: 'number' }, `${job.draft_attempts} / ${job.delivery_attempts}`),
      h('td', {}, when(job.updated_at)),
      h('td', {},
        h('button', { type: 'button', class: 'link', onclick: () => showJob(job) }, t('history')),
        job.state === 'dead' ? h('button', { type: 'button', class: 'redeliver', onclick: () => redeliver(job.request_id) }, t('redeliver')) : null,
      ),
    ),
  );
  $('#jobs tbody').replaceChildren(...(rows.length ? rows : [h('tr', {}, h('td', { colspan: 5 }, t('noJobs')))]));
}

function showJob(job) {
  fill($('#job-detail'),
    h('h3', {}, `${t('history')}: ${job.request_id}`),
    job.error ? h('p', { class: 'error' }, `${job.error.kind}: ${job.error.message}`) : null,
    h('ol', { class: 'history' }, job.history.map((event) => h('li', {}, h('time', {}, when(event.at)), ` ${event.event}`, event.detail ? ` — ${event.detail}` : ''))),
  );
}

async function redeliver(requestId) {
  try {
    const job = await api(`/ai/v1/report-advice-draft/${encodeURIComponent(requestId)}/redeliver`, { method: 'POST' });
    showJob(job);
    $('#job-detail').prepend(h('p', { class: 'ok', role: 'status' }, t('redelivered')));
    await refreshStatus();
  } catch (error) {
    $('#job-detail').replaceChildren(h('p', { class: 'error', role: 'alert' }, error.message));
  }
}

// ---- tabs ----

function selectTab(tab) {
  for (const other of document.querySelectorAll('[role=tab]')) {
    const selected = other === tab;
    other.setAttribute('aria-selected', String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(`#${other.getAttribute('aria-controls')}`).hidden = !selected;
  }
  tab.focus();
  if (tab.id === 'tab-status') refreshStatus().catch(() => {});
}

function onTabKey(event) {
  const tabs = [...document.querySelectorAll('[role=tab]')];
  const index = tabs.indexOf(event.target);
  const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
  if (index < 0 || !step) return;
  event.preventDefault();
  selectTab(tabs[(index + step + tabs.length) % tabs.length]);
}

// ---- try it ----

/** Uploads the file as a short-lived blob behind the gateway's own signed link, runs `work`, then deletes it. */
async function withUpload(file, work) {
  const upload = await api('/console/api/uploads', { method: 'POST', body: file, contentType: 'application/octet-stream' });
  try {
    return await work(upload);
  } finally {
    await api(`/console/api/uploads/${encodeURIComponent(upload.token)}`, { method: 'DELETE' }).catch(() => {});
  }
}

const requestId = () => `console-${crypto.randomUUID()}`;
const fileReference = (file, upload) => ({ upload_file_id: 1, bucket: 'console', object_key: file.name, file_name: file.name, file_url: upload.file_url });
/** A produced file's signed link as a path on this origin (PUBLIC_BASE_URL may name the gateway otherwise). */
const onThisOrigin = (url) => new URL(url).pathname;

function preview(source, type, label) {
  if (type === 'application/pdf') return h('object', { data: source, type, 'aria-label': label, class: 'page' });
  return h('img', { src: source, alt: label, class: 'page' });
}

const figure = (caption, content) => h('figure', {}, h('figcaption', {}, caption), content);

function failure(error) {
  const withheld = error.kind === 'deidentification_failed';
  return h('div', { class: withheld ? 'withheld' : 'error', role: 'alert' },
    h('strong', {}, withheld ? t('withheld') : t('failed')), ` (${error.kind}): ${error.message}`);
}

const LINE_COLOUR = '#d00000';

/** The page turned straight and upright as it was read, each recognised line boxed. */
async function pageWithLines(source, page) {
  const image = new Image();
  image.src = source;
  await image.decode();
  const canvas = h('canvas', { class: 'page', width: page.width, height: page.height, role: 'img', 'aria-label': t('linesRead'), 'data-lines': page.lines.length });
  const context = canvas.getContext('2d');
  // The image turned about its centre by the reading's angle (any angle for a photo taken askew).
  context.translate(page.width / 2, page.height / 2);
  context.rotate((page.rotation * Math.PI) / 180);
  context.drawImage(image, -image.naturalWidth / 2, -image.naturalHeight / 2);
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.strokeStyle = LINE_COLOUR;
  context.lineWidth = 2;
  for (const { box } of page.lines) context.strokeRect(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0);
  return canvas;
}

/** Pages shown side by side; a longer file lists the redactions of the rest without pictures. */
const PAGES_SHOWN = 10;

/** Page `n` of a file the gateway holds (named by its /files/ token), rendered by the gateway as PNG. */
async function pagePicture(token, n, label) {
  try {
    const response = await request(`/console/api/files/${encodeURIComponent(token)}/pages/${n}`);
    const source = URL.createObjectURL(await response.blob());
    const release = () => URL.revokeObjectURL(source);
    return h('img', { src: source, alt: label, class: 'page', onload: release, onerror: release });
  } catch (error) {
    return h('p', { class: 'error' }, `${label}: ${error.message}`);
  }
}

/** One page: the original and the de-identified page side by side, its redaction boxes by kind beside them. */
function pagePair(n, total, kinds, pictures) {
  const heading = `cfp-page-${n}`;
  const counted = Object.entries(kinds);
  return h('section', { class: 'page-pair', 'data-page': n, 'aria-labelledby': heading },
    h('h3', { id: heading }, TEXT[language].pageOf(n, total)),
    pictures ? [figure(t('original'), pictures.original), figure(t('deidentified'), pictures.output)] : null,
    h('div', { class: 'kinds' },
      h('h4', {}, t('redactions')),
      counted.length
        ? h('ul', { 'data-kinds': n }, counted.map(([kind, count]) => h('li', {}, `${kind} ${count}`)))
        : h('p', { 'data-kinds': n }, t('noRedactions')),
    ),
  );
}

const TRY = {
  async 'case-file-process'(file) {
    return withUpload(file, async (upload) => {
      const response = await api('/ai/v1/case-file-process', { method: 'POST', json: { request_id: requestId(), files: [fileReference(file, upload)] } });
      const result = response.results[0];
      const outputToken = decodeURIComponent(onThisOrigin(result.desensitized_url).replace(/^\/files\//, ''));
      const shown = Math.min(result.pages, PAGES_SHOWN);
      // A page and its output at once (the gateway renders two at a time), all before the upload is deleted.
      const pictures = [];
      for (let n = 1; n <= shown; n++) {
        const page = TEXT[language].page(n);
        const [original, output] = await Promise.all([
          pagePicture(upload.token, n, `${t('original')}, ${page}`),
          pagePicture(outputToken, n, `${t('deidentified')}, ${page}`),
        ]);
        pictures.push({ original, output });
      }
      return [
        h('dl', { class: 'facts' },
          h('dt', {}, t('category')), h('dd', { 'data-field': 'category' }, result.category),
          h('dt', {}, t('pages')), h('dd', { 'data-field': 'pages' }, String(result.pages)),
          h('dt', {}, t('redactions')), h('dd', { 'data-field': 'redactions' }, String(result.redactions)),
        ),
        result.pages > shown ? h('p', { class: 'note' }, TEXT[language].notShown(shown)) : null,
        result.page_redactions.map((kinds, index) => pagePair(index + 1, result.pages, kinds, pictures[index])),
      ];
    });
  },
  async 'case-ocr'(file, originalUrl) {
    return withUpload(file, async (upload) => {
      const response = await api('/ai/v1/case-ocr', {
        method: 'POST',
        json: { request_id: requestId(), files: [fileReference(file, upload)], include_lines: true },
      });
      const info = response.patient_info;
      const [result] = response.ocr_results;
      const firstPage = result.pages?.[0];
      const picture = firstPage && file.type.startsWith('image/') ? await pageWithLines(originalUrl, firstPage) : preview(originalUrl, file.type, t('original'));
      return [
        h('h3', {}, t('patientInfo')),
        h('dl', { class: 'facts' }, ['name', 'age', 'cancer_type', 'stage'].map((field) => [
          h('dt', {}, t(field)), h('dd', { 'data-field': field }, info[field] ?? t('notFound')),
        ])),
        h('div', { class: 'side-by-side' },
          figure(t('linesRead'), picture),
          figure(t('text'), h('pre', { class: 'ocr-text', tabindex: 0 }, result.ocr_result)),
        ),
      ];
    });
  },
};

async function onTry(event) {
  event.preventDefault();
  const form = event.target;
  const panel = form.closest('[role=tabpanel]');
  const file = form.elements.file?.files[0];
  if (form.elements.file && !file) return;
  const button = form.querySelector('button');
  const busy = $('.busy', panel);
  const result = $('.result', panel);
  button.disabled = true;
  busy.textContent = t('working');
  result.replaceChildren();
  delete result.dataset.done;
  const originalUrl = file ? URL.createObjectURL(file) : undefined;
  try {
    const shown = await TRY[form.dataset.operation](file ?? form.elements, originalUrl, result);
    fill(result, shown);
    result.dataset.done = 'ok';
  } catch (error) {
    result.replaceChildren(failure(error));
    result.dataset.done = 'error';
  } finally {
    button.disabled = false;
    busy.textContent = '';
  }
}

/** 83450 → "1:23.4" */
function clock(ms) {
  const minutes = Math.floor(ms / 60000);
  return `${minutes}:${((ms % 60000) / 1000).toFixed(1).padStart(4, '0')}`;
}

TRY.asr = async (file, originalUrl) =>
  withUpload(file, async (upload) => {
    const response = await api('/ai/v1/asr', { method: 'POST', json: { request_id: requestId(), voice_url: upload.file_url } });
    const audio = h('audio', { controls: true, src: originalUrl, preload: 'metadata', 'aria-label': t('recording') });
    const playFrom = (ms) => {
      audio.currentTime = ms / 1000;
      audio.play().catch(() => {});
    };
    return [
      audio,
      h('h3', {}, t('transcript')),
      h('p', { 'data-field': 'text' }, response.text),
      h('h3', {}, t('segments')),
      h('ol', { class: 'segments' }, response.segments.map((segment) =>
        h('li', {},
          h('button', { type: 'button', class: 'link', 'data-start-ms': segment.start_ms, onclick: () => playFrom(segment.start_ms) },
            `${clock(segment.start_ms)}–${clock(segment.end_ms)}`),
          ` ${segment.text}`,
        ))),
    ];
  });

/** The speech with every evidence span marked, in the order they occur. */
function markedSpeech(speech, spans) {
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

TRY['speech-process'] = async (fields) => {
  const points = fields.points.value.split('\n').map((line) => line.trim()).filter(Boolean).map((name, index) => ({ seq: index + 1, name }));
  const speech = fields.speech_text.value;
  const response = await api('/ai/v1/speech-process', {
    method: 'POST',
    json: { request_id: requestId(), cancer_type: fields.cancer_type.value, standard_department_code: fields.department.value, points, speech_text: speech },
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
};

/** The draft as the platform stored it, when the callback target is the reference receiver; nothing otherwise. */
async function receivedDraft(id) {
  try {
    const report = await api(`/console/api/advice/${encodeURIComponent(id)}/received`);
    return [h('h3', {}, t('receivedDraft')), h('pre', { class: 'draft', 'data-field': 'draft', tabindex: 0 }, report.ai_advice_ref ?? '')];
  } catch {
    return null;
  }
}

const FINISHED_JOB_STATES = new Set(['delivered', 'dead']);
const ADVICE_FOLLOW_MS = 2000;
const ADVICE_FOLLOW_LIMIT_MS = 5 * 60 * 1000;

TRY['report-advice-draft'] = async (fields, _unused, result) => {
  const id = requestId();
  await api('/ai/v1/report-advice-draft', {
    method: 'POST',
    json: {
      request_id: id,
      cancer_type: fields.cancer_type.value,
      case_summary: { diagnosis: fields.diagnosis.value, key_question: fields.key_question.value },
      dept_opinions: [{ dept: fields.dept.value, content: fields.opinion.value, supplements: [] }],
    },
  });
  result.replaceChildren(h('p', { role: 'status' }, t('accepted')));
  const stopAt = Date.now() + ADVICE_FOLLOW_LIMIT_MS;
  for (;;) {
    const job = await api(`/ai/v1/report-advice-draft/${encodeURIComponent(id)}`);
    const view = [
      h('p', {}, `request_id ${job.request_id}: `, h('span', { class: `state state-${job.state}`, 'data-field': 'state' }, job.state)),
      h('ol', { class: 'history' }, job.history.map((event) => h('li', {}, h('time', {}, when(event.at)), ` ${event.event}`, event.detail ? ` — ${event.detail}` : ''))),
    ];
    if (job.state === 'delivered') return [...view, await receivedDraft(id)];
    if (FINISHED_JOB_STATES.has(job.state)) return view;
    // A platform that is down keeps a job delivering for hours: the Status panel follows it from here.
    if (Date.now() > stopAt) return [...view, h('p', { class: 'note' }, t('stillFollowing'))];
    result.replaceChildren(...view);
    await new Promise((resolve) => setTimeout(resolve, ADVICE_FOLLOW_MS));
  }
};

// ---- start ----

$('#language').addEventListener('change', (event) => {
  language = event.target.value;
  sessionStorage.setItem(LANGUAGE_KEY, language);
  applyLanguage();
});
$('#sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('#token').value.trim());
  $('#token').value = '';
  enter();
});
$('#sign-out').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn();
});
for (const tab of document.querySelectorAll('[role=tab]')) {
  tab.addEventListener('click', () => selectTab(tab));
  tab.addEventListener('keydown', onTabKey);
}
for (const form of document.querySelectorAll('form.try')) form.addEventListener('submit', onTry);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && lastStatus && !$('#panel-status').hidden) refreshStatus().catch(() => {});
});
applyLanguage();
enter();
