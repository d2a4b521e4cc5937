// XML for QTI packages: a small element tree written with every text and attribute escaped, and a
// parser that refuses what a QTI document never needs and an attacker would use: a DOCTYPE (so no
// entity declarations, no external entities, no entity expansion) and malformed markup.
import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

export interface XmlElement {
  name: string;
  attrs: Record<string, string | number | undefined>;
  children: XmlChild[];
}
export type XmlChild = XmlElement | string;

type ChildInput = XmlChild | false | undefined | null | ChildInput[];

/** An element; attributes whose value is undefined are left out, children may be nested lists or falsy. */
export function el(name: string, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: ChildInput[]): XmlElement {
  const kept: Record<string, string | number | undefined> = {};
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined) kept[key] = typeof value === 'boolean' ? String(value) : value;
  return { name, attrs: kept, children: flatten(children) };
}

function flatten(children: ChildInput[]): XmlChild[] {
  const out: XmlChild[] = [];
  for (const child of children) {
    if (Array.isArray(child)) out.push(...flatten(child));
    else if (child !== false && child !== undefined && child !== null && child !== '') out.push(child);
  }
  return out;
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (text: string) => escapeText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

/** The document as text: elements holding only elements are indented; mixed content is written as it is. */
export function serializeXml(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(root, '')}\n`;
}

// Preformatted text keeps every character: nothing is indented inside it.
const PRESERVE = new Set(['pre']);

function write(node: XmlChild, indent: string, preserve = false): string {
  if (typeof node === 'string') return escapeText(node);
  if (preserve || PRESERVE.has(node.name)) {
    const attrs = Object.entries(node.attrs)
      .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
      .join('');
    const inner = node.children.map((c) => write(c, '', true)).join('');
    return `${preserve ? '' : indent}${inner === '' ? `<${node.name}${attrs}/>` : `<${node.name}${attrs}>${inner}</${node.name}>`}`;
  }
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
    .join('');
  if (node.children.length === 0) return `${indent}<${node.name}${attrs}/>`;
  const elementsOnly = node.children.every((c) => typeof c !== 'string');
  if (elementsOnly) return `${indent}<${node.name}${attrs}>\n${node.children.map((c) => write(c, `${indent}  `)).join('\n')}\n${indent}</${node.name}>`;
  return `${indent}<${node.name}${attrs}>${node.children.map((c) => write(c, '')).join('')}</${node.name}>`;
}

/** Why a package or one of its files is refused. */
export class PackageError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/** Parses an XML document of a package; a DOCTYPE, an entity declaration or malformed markup refuses it. */
export function parseXml(text: string, file: string): Element {
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new PackageError(file, 'declares a DOCTYPE or entities, which QTI never needs: refused (no DTD, no entity expansion, no external entities)');
  }
  let problem: string | undefined;
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning' && problem === undefined) problem = message.replace(/\s+/g, ' ').trim();
    },
  });
  let doc;
  try {
    doc = parser.parseFromString(text, 'text/xml');
  } catch (error) {
    problem ??= error instanceof Error ? error.message.replace(/\s+/g, ' ').trim() : String(error);
  }
  const root = doc?.documentElement;
  if (problem !== undefined || !root) throw new PackageError(file, `is not well-formed XML: ${(problem ?? 'no root element').slice(0, 200)}`);
  return root;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const CDATA_NODE = 4;

/** The child nodes of an element (elements, text, ...), in order. */
export const nodesOf = (element: Element): Node[] => {
  const out: Node[] = [];
  for (let node: Node | null = element.firstChild; node; node = node.nextSibling) out.push(node);
  return out;
};

/** The element children of an element (any namespace), by local name when given. */
export function children(element: Element, name?: string): Element[] {
  const out: Element[] = [];
  for (let node: Node | null = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === ELEMENT_NODE && (name === undefined || localName(node as Element) === name)) out.push(node as Element);
  }
  return out;
}

export const child = (element: Element, name: string): Element | undefined => children(element, name)[0];

/** Every descendant element with the local name, in document order. */
export function descendants(element: Element, name: string): Element[] {
  const out: Element[] = [];
  const walk = (e: Element) => {
    for (const c of children(e)) {
      if (localName(c) === name) out.push(c);
      walk(c);
    }
  };
  walk(element);
  return out;
}

export const localName = (element: Element): string => element.localName ?? element.nodeName.replace(/^.*:/, '');

/** The text of an element and its descendants, spaces collapsed. */
export function textOf(element: Element): string {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim();
}

export const attr = (element: Element, name: string): string | undefined => (element.hasAttribute(name) ? element.getAttribute(name)! : undefined);
