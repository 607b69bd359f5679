// @ts-check
// The gateway's API as the console calls it, with the token kept in this tab.

/** @typedef {import('zod').infer<typeof import('../../../contract/errors.js').errorBody>} ErrorBody */
/** @typedef {import('../answers.js').ConsoleUpload} ConsoleUpload */
/** @typedef {import('../../../contract/advice.js').AdviceJobStatus} AdviceJobStatus */

/**
 * What each operation the console tries takes and answers, as the contract declares it.
 * @typedef {{
 *   'case-file-process': [import('../../../contract/case-files.js').CaseFileProcessRequest, import('../../../contract/case-files.js').CaseFileProcessResponse],
 *   'case-ocr': [import('../../../contract/case-files.js').CaseOcrRequest, import('../../../contract/case-files.js').CaseOcrResponse],
 *   'speech-process': [import('../../../contract/speech.js').SpeechProcessRequest, import('../../../contract/speech.js').SpeechProcessResponse],
 *   'asr': [import('../../../contract/asr.js').AsrRequest, import('../../../contract/asr.js').AsrResponse],
 *   'report-advice-draft': [import('../../../contract/advice.js').ReportAdviceDraftRequest, import('../../../contract/advice.js').ReportAdviceDraftResponse],
 * }} Operations
 */

const TOKEN_KEY = 'mdt-console-token';

export const token = () => sessionStorage.getItem(TOKEN_KEY);
export const keepToken = (/** @type {string} */ value) => sessionStorage.setItem(TOKEN_KEY, value);
export const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY);

/** @type {() => void} */
let onUnauthorized = () => {};
/** What to do when the gateway refuses the token (the console shows the sign-in form). */
export const whenUnauthorized = (/** @type {() => void} */ action) => {
  onUnauthorized = action;
};

export class ApiError extends Error {
  /** @param {number} status @param {Partial<ErrorBody> | undefined} body */
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    /** @type {string} */
    this.kind = body?.error?.kind ?? 'http';
  }
}

/**
 * @typedef {object} RequestOptions
 * @property {string} [method]
 * @property {unknown} [json]  sent as JSON
 * @property {Blob} [body]  sent as application/octet-stream
 */

/** The gateway's answer with the tab's token; an error body becomes an ApiError. */
export async function request(/** @type {string} */ path, /** @type {RequestOptions} */ { method = 'GET', json, body } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  const saved = token();
  if (saved) headers.authorization = `Bearer ${saved}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  if (body !== undefined) headers['content-type'] = 'application/octet-stream';
  const response = await fetch(path, { method, headers, body: json !== undefined ? JSON.stringify(json) : body });
  if (response.status === 401) onUnauthorized();
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => undefined));
  return response;
}

/**
 * The gateway's JSON answer (undefined for none), of the type the caller declares.
 * @template [T=unknown]
 * @param {string} path
 * @param {RequestOptions} [options]
 * @returns {Promise<T>}
 */
export async function api(path, options) {
  const text = await (await request(path, options)).text();
  return /** @type {T} */ (text ? JSON.parse(text) : undefined);
}

/**
 * Calls operation `id` of /ai/v1 with `body`.
 * @template {keyof Operations} Id
 * @param {Id} id
 * @param {Operations[Id][0]} body
 * @returns {Promise<Operations[Id][1]>}
 */
export const callOperation = (id, body) => api(`/ai/v1/${id}`, { method: 'POST', json: body });

/** An AI-3 job as GET /ai/v1/report-advice-draft/{request_id} shows it. */
export const adviceJob = (/** @type {string} */ requestId) =>
  /** @type {Promise<AdviceJobStatus>} */ (api(`/ai/v1/report-advice-draft/${encodeURIComponent(requestId)}`));

/** Asks the gateway to deliver a dead AI-3 job's callback again; the job as it is now. */
export const redeliverJob = (/** @type {string} */ requestId) =>
  /** @type {Promise<AdviceJobStatus>} */ (api(`/ai/v1/report-advice-draft/${encodeURIComponent(requestId)}/redeliver`, { method: 'POST' }));

/**
 * Uploads the file as a short-lived blob behind the gateway's own signed link, runs `work`, then deletes it.
 * @template T
 * @param {File} file
 * @param {(upload: ConsoleUpload) => Promise<T>} work
 */
export async function withUpload(file, work) {
  /** @type {ConsoleUpload} */
  const upload = await api('/console/api/uploads', { method: 'POST', body: file });
  try {
    return await work(upload);
  } finally {
    await api(`/console/api/uploads/${encodeURIComponent(upload.token)}`, { method: 'DELETE' }).catch(() => {});
  }
}

/** What went wrong, in words: an error's message. */
export const messageOf = (/** @type {unknown} */ error) => (error instanceof Error ? error.message : String(error));

export const requestId = () => `console-${crypto.randomUUID()}`;
