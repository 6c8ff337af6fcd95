/**
 * A strict little XML reader for the chart tests: it accepts only well-formed XML of the kind an SVG file
 * is (elements, double- or single-quoted attributes, text, the five predefined entities and numeric
 * character references; no DTD, no CDATA, no comments, no processing instructions) and throws on anything
 * else — a tag left open, a mismatched end tag, an unquoted or duplicate attribute, a raw `<` or a bare
 * `&` in text or in a value, text or a second element outside the root.
 */

/** One element. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (entities decoded), its children's excluded. */
  text: string;
}

const NAME = '[A-Za-z_:][-A-Za-z0-9_:.]*';
const ENTITY = /&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/g;

function decode(s: string, where: string): string {
  const bare = s.replace(ENTITY, '');
  if (bare.includes('&')) throw new Error(`bare & in ${where}: ${JSON.stringify(s)}`);
  if (bare.includes('<')) throw new Error(`raw < in ${where}: ${JSON.stringify(s)}`);
  return s.replace(ENTITY, (e) => {
    switch (e) {
      case '&amp;':
        return '&';
      case '&lt;':
        return '<';
      case '&gt;':
        return '>';
      case '&quot;':
        return '"';
      case '&apos;':
        return "'";
      default:
        return String.fromCodePoint(e[2] === 'x' ? parseInt(e.slice(3, -1), 16) : parseInt(e.slice(2, -1), 10));
    }
  });
}

/** Parse a document; throws unless it is well-formed with exactly one root element. */
export function parseXml(doc: string): XmlElement {
  const tag = new RegExp(`<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"]*"|'[^']*'))*)\\s*(/?)>`, 'y');
  const attr = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'g');
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let i = 0;
  while (i < doc.length) {
    const lt = doc.indexOf('<', i);
    const text = doc.slice(i, lt < 0 ? doc.length : lt);
    if (text !== '') {
      const decoded = decode(text, 'text');
      if (stack.length > 0) stack[stack.length - 1].text += decoded;
      else if (decoded.trim() !== '') throw new Error(`text outside the root element: ${JSON.stringify(text.slice(0, 40))}`);
    }
    if (lt < 0) break;
    tag.lastIndex = lt;
    const m = tag.exec(doc);
    if (!m) throw new Error(`malformed tag at offset ${lt}: ${JSON.stringify(doc.slice(lt, lt + 60))}`);
    const [whole, close, name, rawAttrs, selfClose] = m;
    i = lt + whole.length;
    if (close) {
      if (rawAttrs.trim() !== '' || selfClose) throw new Error(`malformed end tag </${name}>`);
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes ${open ? `<${open.name}>` : 'nothing'}`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of rawAttrs.matchAll(attr)) {
      if (Object.hasOwn(attrs, a[1])) throw new Error(`duplicate attribute ${a[1]} on <${name}>`);
      attrs[a[1]] = decode(a[2] ?? a[3] ?? '', `attribute ${a[1]}`);
    }
    const el: XmlElement = { name, attrs, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1].children.push(el);
    else if (root !== null) throw new Error(`a second root element <${name}>`);
    else root = el;
    if (!selfClose) stack.push(el);
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1].name}> is never closed`);
  if (root === null) throw new Error('no root element');
  return root;
}

/** Every element below (and including) `el`, depth first. */
export function allElements(el: XmlElement): XmlElement[] {
  return [el, ...el.children.flatMap(allElements)];
}
