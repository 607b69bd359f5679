// @ts-check
// The console's words, in one place: each phrase in English and in Chinese side by side, so that
// neither language can lack one.

const LANGUAGE_KEY = 'mdt-console-language';

/**
 * A phrase in English and in Chinese (the same kind of phrase: text, or text made from numbers).
 * @template T
 * @param {T} en
 * @param {T} zh
 * @returns {{ en: T, zh: T }}
 */
const both = (en, zh) => ({ en, zh });

const PHRASES = {
  title: both('MDT AI gateway · console', 'MDT AI 网关 · 控制台'),
  language: both('Language', '语言'),
  signOut: both('Sign out', '退出'),
  signInTitle: both('Sign in', '登录'),
  signInHelp: both(
    "Enter one of the gateway's operator tokens (OPERATOR_TOKENS). It is kept in this tab only.",
    '输入网关的一个运维令牌（OPERATOR_TOKENS）。令牌只保存在本标签页中。',
  ),
  token: both('Operator token', '运维令牌'),
  signIn: both('Sign in', '登录'),
  tokenRefused: both('The gateway refused this token: the console needs an operator token.', '网关拒绝了这个令牌：控制台需要运维令牌。'),
  panels: both('Panels', '面板'),
  status: both('Status', '状态'),
  updated: both('Updated', '更新于'),
  pollNote: both('refreshes every 5 s while this tab is visible', '本页可见时每 5 秒刷新'),
  engines: both('Engines', '引擎'),
  engine: both('Engine', '引擎'),
  state: both('State', '状态'),
  model: both('Model', '模型'),
  hash: both('SHA-256', 'SHA-256'),
  device: both('Device', '设备'),
  threads: both('Threads', '线程'),
  concurrency: both('Concurrency', '并发'),
  running: both('Running', '运行中'),
  queued: both('Queued', '排队'),
  meanWait: both('Mean queue wait', '平均排队时间'),
  reason: both('Reason', '原因'),
  verified: both('verified', '已校验'),
  unverified: both('not verified', '未校验'),
  traffic: both('Requests, last 15 minutes', '最近 15 分钟的请求'),
  trafficSummary: both(
    (/** @type {number} */ requests, /** @type {number} */ errors) => `${requests} requests, ${errors} errors`,
    (requests, errors) => `${requests} 个请求，${errors} 个错误`,
  ),
  errorKinds: both('Error kinds', '错误类型'),
  noErrors: both('No errors.', '没有错误。'),
  adviceJobs: both('AI-3 jobs', 'AI-3 任务'),
  attempts: both('Draft / delivery attempts', '生成 / 投递次数'),
  updatedCol: both('Updated', '更新时间'),
  actions: both('Actions', '操作'),
  history: both('History', '历史'),
  redeliver: both('Redeliver', '重新投递'),
  redelivered: both('Redelivery requested.', '已请求重新投递。'),
  noJobs: both('No jobs yet.', '暂无任务。'),
  cfpTitle: both('De-identify a case file', '病历文件脱敏'),
  ocrTitle: both('Read a case file', '病历文件识别'),
  fileLabel: both('Image or PDF', '图片或 PDF'),
  run: both('Run', '运行'),
  working: both('Working…', '处理中…'),
  original: both('Original', '原件'),
  deidentified: both('De-identified', '脱敏后'),
  category: both('Category', '类别'),
  pages: both('Pages', '页数'),
  redactions: both('Redaction boxes', '遮盖框'),
  page: both((/** @type {number} */ n) => `Page ${n}`, (n) => `第 ${n} 页`),
  withheld: both('Withheld', '已扣留'),
  failed: both('Failed', '失败'),
  pageOf: both((/** @type {number} */ n, /** @type {number} */ total) => `Page ${n} of ${total}`, (n, total) => `第 ${n} 页，共 ${total} 页`),
  noRedactions: both('No redaction boxes', '没有遮盖框'),
  notShown: both((/** @type {number} */ n) => `Only the first ${n} pages are shown.`, (n) => `只显示前 ${n} 页。`),
  patientInfo: both('Patient information', '患者信息'),
  linesRead: both('Lines read', '识别出的行'),
  text: both('Text', '文本'),
  name: both('Name', '姓名'),
  age: both('Age', '年龄'),
  cancer_type: both('Cancer type', '癌种'),
  stage: both('Stage', '分期'),
  notFound: both('not found', '未识别'),
  unreachable: both('The gateway did not answer.', '网关没有应答。'),
  speechTitle: both("Judge a doctor's speech against the required points", '按必答要点评判医生发言'),
  cancerType: both('Cancer type', '癌种'),
  department: both('Department code', '科室代码'),
  points: both('Required points, one a line', '必答要点，每行一个'),
  speechText: both('Speech text', '发言文本'),
  complete: both('Complete', '完整'),
  incomplete: both('Incomplete', '不完整'),
  covered: both('covered', '已覆盖'),
  missing: both('missing', '缺失'),
  conclusion: both('Conclusion', '结论'),
  adviceTitle: both('Draft report advice (AI-3), then follow the job to its callback', '生成报告建议草稿（AI-3），并跟踪任务直到回调'),
  diagnosis: both('Diagnosis', '诊断'),
  question: both('Key question', '关键问题'),
  dept: both('Department', '科室'),
  opinion: both('Its opinion', '科室意见'),
  accepted: both('Accepted; following the job…', '已受理，正在跟踪任务…'),
  receivedDraft: both('The draft the platform received', '平台收到的草稿'),
  stillFollowing: both('Not delivered yet; the Status panel shows the job from here.', '尚未投递；之后请在“状态”面板查看该任务。'),
  asrTitle: both('Transcribe a recording', '录音转写'),
  recording: both('Recording', '录音'),
  transcript: both('Transcript', '转写文本'),
  segments: both('Segments (click to play from there)', '分段（点击从该处播放）'),
};

/** @typedef {{ [Key in keyof typeof PHRASES]: (typeof PHRASES)[Key]['en'] }} Dictionary */
/** @typedef {{ [Key in keyof Dictionary]: Dictionary[Key] extends string ? Key : never }[keyof Dictionary]} Phrase */
/** @typedef {'en' | 'zh'} Language */

/** @param {Language} language @returns {Dictionary} */
const dictionary = (language) =>
  /** @type {Dictionary} */ (Object.fromEntries(Object.entries(PHRASES).map(([key, phrase]) => [key, phrase[language]])));
const DICTIONARIES = { en: dictionary('en'), zh: dictionary('zh') };

/** @param {string | null} value @returns {value is Language} */
const isLanguage = (value) => value === 'en' || value === 'zh';

const stored = sessionStorage.getItem(LANGUAGE_KEY);
/** @type {Language} */
let language = isLanguage(stored) ? stored : navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';

export const currentLanguage = () => language;

/** Shows the console in `chosen` from now on, in this tab. */
export function chooseLanguage(/** @type {string} */ chosen) {
  if (!isLanguage(chosen)) return;
  language = chosen;
  sessionStorage.setItem(LANGUAGE_KEY, language);
}

/** The current language's dictionary, for the phrases that take numbers. */
export const phrases = () => DICTIONARIES[language];

/** A phrase in the current language. */
export const t = (/** @type {Phrase} */ key) => DICTIONARIES[language][key];

/** @param {string} key @returns {key is Phrase} */
const isPhrase = (key) => typeof DICTIONARIES.en[/** @type {keyof Dictionary} */ (key)] === 'string';

export const locale = () => (language === 'zh' ? 'zh-CN' : 'en-GB');

/** An ISO 8601 time as the operator reads it; nothing for none. */
export const when = (/** @type {string | null | undefined} */ iso) => (iso ? new Date(iso).toLocaleString(locale()) : '');

/** Puts every phrase of the page (data-i18n, and data-i18n-label for aria-label) in the current language. */
export function translatePage() {
  document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
  document.title = t('title');
  const translate = (/** @type {string | null} */ key) => (key !== null && isPhrase(key) ? t(key) : (key ?? ''));
  for (const element of document.querySelectorAll('[data-i18n]')) element.textContent = translate(element.getAttribute('data-i18n'));
  for (const element of document.querySelectorAll('[data-i18n-label]')) element.setAttribute('aria-label', translate(element.getAttribute('data-i18n-label')));
}
