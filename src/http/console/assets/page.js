// @ts-check
// Building the page: plain DOM, no framework. Text from the API is only ever set as text, never parsed as HTML.
import { t } from './i18n.js';

/** @typedef {import('./i18n.js').Phrase} Phrase */
/**
 * What an element holds: nodes and text; a list stands for its children in turn, null and undefined for nothing.
 * @typedef {Node | string | null | undefined | { readonly length: number, readonly [index: number]: Child }} Child
 */
/** @typedef {Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>} Attributes */

/**
 * One panel of the console, behind its tab: console.js builds the tabs and sections from the list of panels.
 * @typedef {object} Panel
 * @property {string} id  names its tab (tab-<id>) and section (panel-<id>)
 * @property {Phrase} [label]  the tab's phrase; without one the tab reads the id (an operation's endpoint id)
 * @property {(section: HTMLElement) => void} build  fills its section, once
 * @property {() => void} [selected]  its tab was chosen
 */

/** @param {Child[]} children @returns {(Node | string)[]} */
const flatten = (children) =>
  children.flatMap((child) => {
    if (child === null || child === undefined) return [];
    return typeof child === 'string' || child instanceof Node ? [child] : flatten(Array.from(child));
  });

/**
 * An element with attributes (a function is a listener of the event its name starts with "on") and children.
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Attributes} [attributes]
 * @param {...Child} children
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...flatten(children));
  return element;
}

/** Replaces an element's children (replaceChildren alone would write null as "null"). */
export const fill = (/** @type {Element} */ element, /** @type {Child[]} */ ...children) => element.replaceChildren(...flatten(children));

/**
 * The element `selector` finds, of class `type`; the shell (index.html) holds each one asked for.
 * @template {Element} E
 * @param {string} selector
 * @param {{ new (): E, prototype: E }} type
 * @returns {E}
 */
export function $(selector, type) {
  const element = document.querySelector(selector);
  if (!(element instanceof type)) throw new Error(`the page has no ${selector}`);
  return element;
}

/**
 * An element that says phrase `key`, and says it again in the other language when it changes.
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Phrase} key
 * @param {Attributes} [attributes]
 */
export const said = (tag, key, attributes = {}) => h(tag, { ...attributes, 'data-i18n': key }, t(key));
