import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { html } from './html.js';
import { markdownBlocks, optionText, markdown } from './markdown.js';

const render = (text: string) => markdown(text).toString();
/** The name markdownBlocks gives a formula inside a line: its own, not the same formula's as a block. */
const inlineName = (formula: object) =>
  `formula-${createHash('sha256')
    .update(JSON.stringify({ ...formula, inline: true }))
    .digest('hex')}.png`;

describe('Markdown prompts', () => {
  it('renders the subset: paragraphs with their line breaks, lists, emphasis, code, tables', () => {
    assert.equal(render('Line one\nline *two*'), '<p>Line one<br>\nline <em>two</em></p>\n');
    assert.equal(render('- a\n- **b**'), '<ul>\n<li>a</li>\n<li><strong>b</strong></li>\n</ul>\n');
    assert.equal(render('1. first\n2. second'), '<ol>\n<li>first</li>\n<li>second</li>\n</ol>\n');
    assert.equal(render('Use `=SUM(A1:A3)`'), '<p>Use <code>=SUM(A1:A3)</code></p>\n');
    assert.equal(render('```\n<b>raw</b>\n```'), '<pre><code>&lt;b&gt;raw&lt;/b&gt;\n</code></pre>\n');
    const table = render('| Team | Jan |\n| :--- | ---: |\n| North | 420 |');
    assert.match(table, /^<table>\n<thead>\n<tr>\n<th class="align-left">Team<\/th>\n<th class="align-right">Jan<\/th>/);
    assert.match(table, /<td class="align-left">North<\/td>\n<td class="align-right">420<\/td>/);
    assert.doesNotMatch(table, /style=/, 'alignment is a class: the CSP forbids style attributes');
  });

  it('keeps headings and images out: they render as text', () => {
    assert.equal(render('# Title'), '<p># Title</p>\n');
    assert.equal(render('Title\n---'), '<p>Title</p>\n<hr>\n');
    // An image from elsewhere is its text: nothing is loaded from outside the service.
    assert.equal(render('![alt](https://example.com/x.png)'), '<p>alt</p>\n');
    assert.doesNotMatch(render('![x](javascript:alert(1))'), /<(img|a) /);
    assert.doesNotMatch(render('![x](media:abc.png)'), /<img /);
  });

  it('shows a stored media file: an image with its alternative text, audio and video with controls and their description', () => {
    const sha = 'a'.repeat(64);
    assert.equal(
      render(`See ![A "bar" chart <b>](media:${sha}.png)`),
      `<p>See <img class="media" src="/portal/media/${sha}.png" alt="A &quot;bar&quot; chart &lt;b&gt;" loading="lazy"></p>\n`,
    );
    assert.equal(
      render(`![Two colleagues plan a meeting](media:${sha}.mp3)`),
      `<p><span class="media audio"><audio controls preload="metadata" src="/portal/media/${sha}.mp3" aria-label="Two colleagues plan a meeting"></audio><span class="media-description">Two colleagues plan a meeting</span></span></p>\n`,
    );
    assert.match(render(`![A demo](media:${sha}.webm)`), /<video controls preload="metadata" src="\/portal\/media\/a{64}\.webm"/);
  });

  it('draws TeX formulas and MathML as sanitised MathML, and leaves prices alone', () => {
    assert.equal(render('E = $mc^2$.'), '<p>E = <math><mrow><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></mrow></math>.</p>\n');
    assert.match(render('$$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$'), /^<p><math display="block"><mrow><mi>x<\/mi><mo>=<\/mo><mfrac>.*<msqrt>/);
    assert.equal(render('Costs $5 and $10.'), '<p>Costs $5 and $10.</p>\n');
    assert.equal(render('bad $\\frac{$ TeX'), '<p>bad <code>\\frac{</code> TeX</p>\n');
    assert.equal(
      render('<math><mi>x</mi><mi onclick="alert(1)" style="color:red">y</mi><mtext><a href="javascript:alert(1)">k</a></mtext></math> <script>x</script>'),
      '<p><math><mi>x</mi><mi>y</mi><mtext>k</mtext></math> &lt;script&gt;x&lt;/script&gt;</p>\n',
    );
  });

  it('gives what draws text alone (the PDF) every block: a list inside a quote and what follows it, pictures and formulas as text', () => {
    const sha = 'c'.repeat(64);
    assert.deepEqual(markdownBlocks(`> Read this:\n>\n> - one\n> - two\n>\n> After the list.\n\nThen ![A chart](media:${sha}.png), ![A talk](media:${sha}.mp3) and $x^2$.`), [
      { kind: 'quote', text: 'Read this:' },
      { kind: 'list', ordered: false, items: ['one', 'two'], quoted: true },
      { kind: 'quote', text: 'After the list.' },
      {
        kind: 'paragraph',
        text: 'Then , [Audio: A talk] and x^2.',
        runs: [{ text: 'Then , [Audio: A talk] and ' }, { file: inlineName({ tex: 'x^2' }), alt: 'x^2', formula: { tex: 'x^2' } }, { text: '.' }],
      },
      { kind: 'image', file: `${sha}.png`, alt: 'A chart' },
    ]);
  });

  it('gives the PDF the formulas inside a line as pieces of it, named apart from the same formula shown as a block', () => {
    const mathml = '<math><mn>14</mn><mo>×</mo><mi>tan</mi></math>';
    assert.deepEqual(markdownBlocks(`> Mind $a_1$\n\n  ${mathml} = ?  \n\nNo formula.`), [
      { kind: 'quote', text: 'Mind a_1', runs: [{ text: 'Mind ' }, { file: inlineName({ tex: 'a_1' }), alt: 'a_1', formula: { tex: 'a_1' } }] },
      { kind: 'paragraph', text: '14 × tan = ?', runs: [{ file: inlineName({ mathml }), alt: '14 × tan', formula: { mathml } }, { text: ' = ?' }] },
      { kind: 'paragraph', text: 'No formula.' },
    ]);
    const [block] = markdownBlocks('$$a_1$$');
    assert.ok(block?.kind === 'image' && block.file !== inlineName({ tex: 'a_1' }));
  });

  it('gives the PDF a list whose items hold formulas with each item in pieces', () => {
    assert.deepEqual(markdownBlocks('1. Area $r^2$ each\n2. None here'), [
      {
        kind: 'list',
        ordered: true,
        items: ['Area r^2 each', 'None here'],
        runs: [[{ text: 'Area ' }, { file: inlineName({ tex: 'r^2' }), alt: 'r^2', formula: { tex: 'r^2' } }, { text: ' each' }], [{ text: 'None here' }]],
      },
    ]);
    assert.deepEqual(markdownBlocks('- plain\n- text'), [{ kind: 'list', ordered: false, items: ['plain', 'text'] }], 'no pieces without a formula');
  });

  it('draws an option as plain text but for the media files it names', () => {
    const sha = 'b'.repeat(64);
    assert.equal(
      String(optionText(`*Not* <b>bold</b> ![A filled square](media:${sha}.svg)`)),
      `*Not* &lt;b&gt;bold&lt;/b&gt; <img class="media" src="/portal/media/${sha}.svg" alt="A filled square" loading="lazy">`,
    );
    assert.equal(String(optionText('![x](https://example.com/x.png)')), '![x](https://example.com/x.png)');
  });

  it('escapes raw HTML: <script>, <img onerror>, event handlers and entities stay text', () => {
    assert.equal(render('<script>alert(1)</script>'), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n');
    assert.equal(render('Look <img src=x onerror="alert(1)"> here'), '<p>Look &lt;img src=x onerror=&quot;alert(1)&quot;&gt; here</p>\n');
    assert.equal(render('<div onclick="x()">\n\nblock\n</div>'), '<p>&lt;div onclick=&quot;x()&quot;&gt;</p>\n<p>block<br>\n&lt;/div&gt;</p>\n');
    assert.equal(render('`<script>`'), '<p><code>&lt;script&gt;</code></p>\n');
    assert.equal(
      render('| a |\n| - |\n| <iframe src=x> |'),
      '<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>&lt;iframe src=x&gt;</td>\n</tr>\n</tbody>\n</table>\n',
    );
  });

  it('links only to http(s) and mailto addresses, in a new tab; anything else stays text', () => {
    assert.equal(render('[help](https://example.com/a?b=1&c=2)'), '<p><a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">help</a></p>\n');
    assert.match(render('[mail](mailto:help@example.com)'), /<a href="mailto:help@example.com"/);
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'java%0ascript:alert(1)',
      'data:text/html,<script>x</script>',
      'vbscript:x',
      '/relative',
      '//evil.example',
      '',
      '<>',
      ' ',
    ]) {
      const out = render(`[click](${bad})`);
      assert.doesNotMatch(out, /<a /, `${bad}: ${out}`);
    }
    assert.doesNotMatch(render('<javascript:alert(1)>'), /<a /);
    assert.doesNotMatch(render('[x]: javascript:alert(1)\n\n[x]'), /<a /, 'reference-style links are checked too');
    assert.doesNotMatch(render('https://example.com'), /<a /, 'bare addresses are not linked');
  });

  it('enters a template as markup, once, without double escaping', () => {
    assert.equal(html`<div>${markdown('a & *b*')}</div>`.toString(), '<div><p>a &amp; <em>b</em></p>\n</div>');
  });

  it('never lets generated text open a tag, an event handler or a script URL', () => {
    const pieces = fc.constantFrom(
      '<',
      '>',
      '"',
      "'",
      '&',
      '*',
      '_',
      '`',
      '|',
      '[',
      ']',
      '(',
      ')',
      '\n',
      ' ',
      '-',
      ':',
      'script',
      'img',
      'onerror=',
      'javascript',
      'a',
      '!',
      '#',
      '\\',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }), (parts) => {
        const out = render(parts.join(''));
        const tags = [...out.matchAll(/<\/?([a-z0-9]+)([^>]*)>/g)];
        for (const [, name, attributes] of tags) {
          assert.ok(['p', 'br', 'em', 'strong', 'code', 'pre', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'blockquote', 'hr', 's', 'a'].includes(name!), out);
          assert.doesNotMatch(attributes!, /\son\w+=/i, out);
        }
        assert.doesNotMatch(out, /href="(?!https?:|mailto:)/i, out);
      }),
      { numRuns: 1000 },
    );
  });
});
