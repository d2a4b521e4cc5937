import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SafeHtml, html, join, trustedHtml } from './html.js';

describe('html templates', () => {
  it('escapes every interpolated string', () => {
    const name = `<script>alert("x")</script> & O'Brien`;
    assert.equal(html`<p>${name}</p>`.toString(), '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; O&#39;Brien</p>');
  });

  it('keeps nested templates and arrays of them as markup, escaping their values', () => {
    const items = ['a<b', 'c&d'].map((t) => html`<li>${t}</li>`);
    assert.equal(html`<ul>${items}</ul>`.toString(), '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>');
  });

  it('renders nothing for null, undefined and booleans, so conditions read naturally', () => {
    const show = false;
    assert.equal(html`<p>${show && html`<b>x</b>`}${null}${undefined}${true}</p>`.toString(), '<p></p>');
    assert.equal(html`<p>${0}</p>`.toString(), '<p>0</p>');
  });

  it('refuses scripted URLs in URL attributes, keeps relative and web ones', () => {
    for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x', 'vbscript:x']) {
      assert.equal(html`<a href="${bad}">x</a>`.toString(), '<a href="about:invalid">x</a>', bad);
    }
    for (const good of ['/portal/a/x?q=1', '?q=2', '#main', 'https://example.com/a?b=1&c=2', 'mailto:help@example.com', 'report.pdf']) {
      assert.equal(
        html`<a href="${good}">x</a>`.toString(),
        `<a href="${good.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}">x</a>`,
        good,
      );
    }
    // Outside URL attributes the same text is ordinary (escaped) text.
    assert.equal(html`<p title="${'javascript:x'}">${'javascript:x'}</p>`.toString(), '<p title="javascript:x">javascript:x</p>');
  });

  it('passes trusted markup through only by the explicit call', () => {
    assert.equal(html`<div>${trustedHtml('<svg></svg>')}</div>`.toString(), '<div><svg></svg></div>');
  });

  it('joins with an escaped separator', () => {
    assert.equal(join([html`<b>1</b>`, '<2>'], ', ').toString(), '<b>1</b>, &lt;2&gt;');
  });

  it('cannot be forged from outside the module', () => {
    assert.throws(() => new SafeHtml('<script>', Symbol('SafeHtml')), TypeError);
  });

  it('never lets a generated string open a tag or leave an attribute', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = html`<p title="${text}">${text}</p>`.toString();
        const inner = out.slice('<p title="'.length, -'</p>'.length);
        assert.ok(!/[<>"']/.test(inner.replace('">', '')), out);
      }),
      { numRuns: 500 },
    );
  });
});
