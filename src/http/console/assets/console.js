// @ts-check
// The operator's console: signs in, builds a tab and a section for each panel, and switches between them.
import { ApiError, forgetToken, keepToken, token, whenUnauthorized } from './api.js';
import { asrPanel } from './asr-panel.js';
import { caseFileProcessPanel } from './case-file-process-panel.js';
import { caseOcrPanel } from './case-ocr-panel.js';
import { chooseLanguage, currentLanguage, t, translatePage } from './i18n.js';
import { $, h } from './page.js';
import { reportAdviceDraftPanel } from './report-advice-draft-panel.js';
import { speechProcessPanel } from './speech-process-panel.js';
import { refreshIfShown, refreshStatus, rerenderStatus, schedulePoll, statusPanel, stopPolling } from './status-panel.js';

/** The panels, in the order of their tabs; the first is shown first. */
const PANELS = [statusPanel, caseFileProcessPanel, caseOcrPanel, speechProcessPanel, asrPanel, reportAdviceDraftPanel];

const app = $('#app', HTMLElement);
const signIn = $('#sign-in', HTMLElement);
const signInError = $('#sign-in-error', HTMLElement);
const signOut = $('#sign-out', HTMLButtonElement);
const tokenInput = $('#token', HTMLInputElement);
const languageSelect = $('#language', HTMLSelectElement);
const tabList = $('#app [role=tablist]', HTMLElement);

/** A tab and its section for each panel, the first selected. */
function buildPanels() {
  for (const [index, panel] of PANELS.entries()) {
    const first = index === 0;
    const tab = h('button', {
      type: 'button', role: 'tab', id: `tab-${panel.id}`, 'aria-controls': `panel-${panel.id}`,
      'aria-selected': String(first), tabindex: first ? null : -1, 'data-i18n': panel.label,
    }, panel.label ? t(panel.label) : panel.id);
    tab.addEventListener('click', () => selectTab(tab, panel));
    tab.addEventListener('keydown', onTabKey);
    const section = h('section', { id: `panel-${panel.id}`, role: 'tabpanel', 'aria-labelledby': tab.id, hidden: !first });
    panel.build(section);
    tabList.append(tab);
    app.append(section);
  }
}

function selectTab(/** @type {HTMLElement} */ tab, /** @type {import('./page.js').Panel} */ panel) {
  for (const other of tabList.querySelectorAll('[role=tab]')) {
    const selected = other === tab;
    other.setAttribute('aria-selected', String(selected));
    other.setAttribute('tabindex', selected ? '0' : '-1');
    $(`#${other.getAttribute('aria-controls')}`, HTMLElement).hidden = !selected;
  }
  tab.focus();
  panel.selected?.();
}

function onTabKey(/** @type {KeyboardEvent} */ event) {
  const tabs = [...tabList.querySelectorAll('[role=tab]')];
  const index = tabs.findIndex((tab) => tab === event.target);
  const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
  if (index < 0 || !step) return;
  event.preventDefault();
  const next = (index + step + tabs.length) % tabs.length;
  const tab = tabs[next];
  const panel = PANELS[next];
  if (tab instanceof HTMLElement && panel) selectTab(tab, panel);
}

function showSignIn(message = '') {
  stopPolling();
  app.hidden = true;
  signOut.hidden = true;
  signIn.hidden = false;
  signInError.textContent = message;
  tokenInput.focus();
}

async function enter() {
  try {
    await refreshStatus();
    signIn.hidden = true;
    app.hidden = false;
    signOut.hidden = !token();
    schedulePoll();
  } catch (error) {
    // 403: a client token, which reaches /ai/v1 but not the console's data.
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      const hadToken = token() !== null;
      forgetToken();
      showSignIn(hadToken ? t('tokenRefused') : '');
    } else showSignIn(t('unreachable'));
  }
}

function applyLanguage() {
  translatePage();
  languageSelect.value = currentLanguage();
  rerenderStatus();
}

whenUnauthorized(showSignIn);
buildPanels();
languageSelect.addEventListener('change', () => {
  chooseLanguage(languageSelect.value);
  applyLanguage();
});
$('#sign-in-form', HTMLFormElement).addEventListener('submit', (event) => {
  event.preventDefault();
  keepToken(tokenInput.value.trim());
  tokenInput.value = '';
  enter();
});
signOut.addEventListener('click', () => {
  forgetToken();
  showSignIn();
});
document.addEventListener('visibilitychange', refreshIfShown);
applyLanguage();
enter();
