// @ts-check
// case-file-process (AI-4): the original and the de-identified pages side by side, the boxes counted by kind.
import { callOperation, messageOf, request, requestId } from './api.js';
import { phrases, t } from './i18n.js';
import { h } from './page.js';
import { figure, filePanel, fileReference } from './try-it.js';

/** Pages shown side by side; a longer file lists the redactions of the rest without pictures. */
const PAGES_SHOWN = 10;

/** A produced file's signed link as a path on this origin (PUBLIC_BASE_URL may name the gateway otherwise). */
const onThisOrigin = (/** @type {string} */ url) => new URL(url).pathname;

/** Page `n` of a file the gateway holds (named by its /files/ token), rendered by the gateway as PNG. */
async function pagePicture(/** @type {string} */ token, /** @type {number} */ n, /** @type {string} */ label) {
  try {
    const response = await request(`/console/api/files/${encodeURIComponent(token)}/pages/${n}`);
    const source = URL.createObjectURL(await response.blob());
    const release = () => URL.revokeObjectURL(source);
    return h('img', { src: source, alt: label, class: 'page', onload: release, onerror: release });
  } catch (error) {
    return h('p', { class: 'error' }, `${label}: ${messageOf(error)}`);
  }
}

/**
 * One page: the original and the de-identified page side by side, its redaction boxes by kind beside them.
 * @param {number} n
 * @param {number} total
 * @param {Record<string, number>} kinds
 * @param {{ original: HTMLElement, output: HTMLElement } | undefined} pictures
 */
function pagePair(n, total, kinds, pictures) {
  const heading = `cfp-page-${n}`;
  const counted = Object.entries(kinds);
  return h('section', { class: 'page-pair', 'data-page': n, 'aria-labelledby': heading },
    h('h3', { id: heading }, phrases().pageOf(n, total)),
    pictures ? [figure(t('original'), pictures.original), figure(t('deidentified'), pictures.output)] : null,
    h('div', { class: 'kinds' },
      h('h4', {}, t('redactions')),
      counted.length
        ? h('ul', { 'data-kinds': n }, counted.map(([kind, count]) => h('li', {}, `${kind} ${count}`)))
        : h('p', { 'data-kinds': n }, t('noRedactions')),
    ),
  );
}

export const caseFileProcessPanel = filePanel({
  id: 'case-file-process',
  heading: 'cfpTitle',
  fileLabel: 'fileLabel',
  accept: 'image/*,application/pdf',
  async run(file, upload) {
    const response = await callOperation('case-file-process', { request_id: requestId(), files: [fileReference(file, upload)] });
    const [result] = response.results;
    if (!result) throw new Error('the gateway answered no result for the file');
    const outputToken = decodeURIComponent(onThisOrigin(result.desensitized_url).replace(/^\/files\//, ''));
    const shown = Math.min(result.pages, PAGES_SHOWN);
    // A page and its output at once (the gateway renders two at a time), all before the upload is deleted.
    /** @type {{ original: HTMLElement, output: HTMLElement }[]} */
    const pictures = [];
    for (let n = 1; n <= shown; n++) {
      const page = phrases().page(n);
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
      result.pages > shown ? h('p', { class: 'note' }, phrases().notShown(shown)) : null,
      result.page_redactions.map((kinds, index) => pagePair(index + 1, result.pages, kinds, pictures[index])),
    ];
  },
});
