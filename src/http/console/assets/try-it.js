// @ts-check
// The try-it panels: a form that runs one operation, on a file or on fields, and shows what it answered.
import { ApiError, messageOf, withUpload } from './api.js';
import { t } from './i18n.js';
import { fill, h, said } from './page.js';

/** @typedef {import('./page.js').Child} Child */
/** @typedef {import('./page.js').Panel} Panel */
/** @typedef {import('./i18n.js').Phrase} Phrase */
/** @typedef {import('../../../contract/operations.js').OperationId} OperationId */
/** @typedef {import('../../../contract/common.js').FileReference} FileReference */
/** @typedef {import('../answers.js').ConsoleUpload} ConsoleUpload */

/**
 * A panel whose form runs an operation: "Working…" while it runs, then what it shows of the answer,
 * or why it failed; `.result[data-done]` says which once it is over.
 * @param {OperationId} id
 * @param {Phrase} heading
 * @param {Child} controls
 * @param {(result: HTMLElement) => (() => Promise<Child>) | undefined} prepare  the run, or undefined when there is nothing to run
 * @returns {Panel}
 */
function tryPanel(id, heading, controls, prepare) {
  const button = said('button', 'run', { type: 'submit' });
  const form = h('form', { class: 'try', 'data-operation': id }, controls, button);
  const busy = h('p', { class: 'busy', role: 'status' });
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const run = prepare(result);
    if (!run) return;
    button.disabled = true;
    busy.textContent = t('working');
    result.replaceChildren();
    delete result.dataset.done;
    try {
      fill(result, await run());
      result.dataset.done = 'ok';
    } catch (error) {
      fill(result, failure(error));
      result.dataset.done = 'error';
    } finally {
      button.disabled = false;
      busy.textContent = '';
    }
  });
  return { id, build: (section) => fill(section, said('h2', heading), form, busy, result) };
}

/**
 * A panel that runs an operation on a file the operator picks, uploaded to the gateway for as long as the run takes.
 * @param {object} panel
 * @param {OperationId} panel.id
 * @param {Phrase} panel.heading
 * @param {Phrase} panel.fileLabel
 * @param {string} panel.accept  the file types offered
 * @param {(file: File, upload: ConsoleUpload, originalUrl: string) => Promise<Child>} panel.run  `originalUrl` shows the file as picked
 */
export function filePanel({ id, heading, fileLabel, accept, run }) {
  const input = h('input', { id: `${id}-file`, name: 'file', type: 'file', accept, required: true });
  const controls = [said('label', fileLabel, { for: input.id }), input];
  return tryPanel(id, heading, controls, () => {
    const file = input.files?.[0];
    if (!file) return undefined;
    const originalUrl = URL.createObjectURL(file);
    return () => withUpload(file, (upload) => run(file, upload, originalUrl));
  });
}

/**
 * A panel that runs an operation on fields the operator fills in: an input each, or a textarea of `rows`.
 * @template {string} Name
 * @param {object} panel
 * @param {OperationId} panel.id
 * @param {Phrase} panel.heading
 * @param {{ name: Name, label: Phrase, rows?: number, value?: string }[]} panel.fields
 * @param {(values: Record<Name, string>, result: HTMLElement) => Promise<Child>} panel.run  `result` may show progress
 */
export function formPanel({ id, heading, fields, run }) {
  const controls = fields.map(({ name, label, rows, value }) => {
    const attributes = { id: `${id}-${name}`, name, required: true };
    const control = rows ? h('textarea', { ...attributes, rows }) : h('input', { ...attributes, value });
    return { name, label: said('label', label, { for: attributes.id }), control };
  });
  const values = () => /** @type {Record<Name, string>} */ (Object.fromEntries(controls.map(({ name, control }) => [name, control.value])));
  const grid = h('div', { class: 'fields' }, controls.map(({ label, control }) => [label, control]));
  return tryPanel(id, heading, grid, (result) => () => run(values(), result));
}

/** Why a try failed; a withheld file (de-identification could not vouch for it) stands out. */
function failure(/** @type {unknown} */ error) {
  const kind = error instanceof ApiError ? error.kind : error instanceof Error ? error.name : 'error';
  const message = messageOf(error);
  const withheld = kind === 'deidentification_failed';
  return h('div', { class: withheld ? 'withheld' : 'error', role: 'alert' },
    h('strong', {}, withheld ? t('withheld') : t('failed')), ` (${kind}): ${message}`);
}

/**
 * An uploaded file as an operation's request names it.
 * @param {File} file
 * @param {ConsoleUpload} upload
 * @returns {FileReference}
 */
export const fileReference = (file, upload) =>
  ({ upload_file_id: 1, bucket: 'console', object_key: file.name, file_name: file.name, file_url: upload.file_url });

export const figure = (/** @type {string} */ caption, /** @type {Child} */ content) => h('figure', {}, h('figcaption', {}, caption), content);
