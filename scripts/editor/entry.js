// The portal's code editor: CodeMirror 6 over a coding question's textarea. Bundled by
// scripts/build-editor.mjs into src/portal/assets/editor.js, which the service serves itself
// (no CDN), and which only a coding question's page loads.
// The textarea stays the form's field: the editor writes every change back to it and fires an
// input event, so portal.js saves the program as it saves any answer, and a plain form post
// still sends it (without JavaScript the textarea is the editor).
//
// CodeMirror's styles are a <style> element it writes itself; the page's Content-Security-Policy
// allows it through the response's style nonce (EditorView.cspNonce), which the page names in
// <meta name="style-nonce">. No 'unsafe-inline'.
//
// What a person typing a program meets, chosen for a test taker rather than for an IDE:
// - a monospace font, line numbers beside the code, indentation by the language's habit;
// - Enter indents the next line as the block asks (after Python's `:` and JavaScript's `{`), and
//   Backspace in the indentation takes one level away;
// - Tab indents; Escape then Tab leaves the editor (CodeMirror's tab focus mode), so the keyboard
//   is never trapped;
// - an opened bracket or quote is closed, and typing the closing one steps over it, on the same
//   line (CodeMirror) and on the line below when Enter moved it there (ours, below): what the
//   person types is never doubled;
// - no completion pop-up: Enter is always a new line.
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars, keymap, lineNumbers } from '@codemirror/view';
import { Annotation, Compartment, EditorState, StateField } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';

// Each language with the indentation its programs usually have: two spaces in JavaScript, four in Python.
const languages = { javascript: () => [javascript(), indentUnit.of('  ')], python: () => [python(), indentUnit.of('    ')] };
const CLOSING = new Set([')', ']', '}']);

/**
 * Where the closing characters the editor moved stand: after Enter split `{|}` (or `(() => {|})`)
 * the closer went to the line below; when the person then types that closer on an empty line
 * above it, theirs is taken as that one (the empty line goes, the cursor lands after it), and the
 * rest of that line (`)`, `]`) is stepped over as they type it too. Kept as [from, to): the
 * characters still to be stepped over, forgotten as soon as the cursor leaves their start.
 */
const tailAnnotation = Annotation.define();
const movedTail = StateField.define({
  create: () => null,
  update(value, tr) {
    const set = tr.annotation(tailAnnotation);
    if (set !== undefined) return set;
    if (!value) return null;
    const from = tr.changes.mapPos(value.from, 1);
    const to = tr.changes.mapPos(value.to, -1);
    return from < to && tr.state.selection.main.empty && tr.state.selection.main.head === from ? { from, to } : null;
  },
});

const stepOverMoved = EditorView.inputHandler.of((view, from, to, text) => {
  const { state } = view;
  if (from !== to || text.length !== 1 || state.selection.ranges.length > 1) return false;
  const tail = state.field(movedTail);
  if (tail && from === tail.from && state.doc.sliceString(from, from + 1) === text) {
    view.dispatch({
      selection: { anchor: from + 1 },
      annotations: tailAnnotation.of(from + 1 < tail.to ? { from: from + 1, to: tail.to } : null),
      userEvent: 'input.type',
      scrollIntoView: true,
    });
    return true;
  }
  if (!CLOSING.has(text)) return false;
  const line = state.doc.lineAt(from);
  if (from !== line.to || /\S/.test(line.text) || line.number === state.doc.lines) return false;
  const next = state.doc.line(line.number + 1);
  const lead = /^\s*/.exec(next.text)[0].length;
  if (next.text[lead] !== text) return false;
  // The closer stands alone below an empty line the person is on: theirs is that one.
  const removed = next.from - line.from;
  const after = next.from + lead + 1 - removed;
  const rest = /^[)\]]*/.exec(next.text.slice(lead + 1))[0].length;
  view.dispatch({
    changes: { from: line.from, to: next.from },
    selection: { anchor: after },
    annotations: tailAnnotation.of(rest > 0 ? { from: after, to: after + rest } : null),
    userEvent: 'input.type',
    scrollIntoView: true,
  });
  return true;
});

/** The style nonce of this response (CodeMirror's <style> element carries it), if the page has one. */
function styleNonce() {
  return document.querySelector('meta[name="style-nonce"]')?.nonce ?? '';
}

function attach(textarea, select) {
  const language = new Compartment();
  const mode = () => (languages[select?.value] ?? languages.javascript)();
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      EditorView.cspNonce.of(styleNonce()),
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      EditorState.tabSize.of(4),
      indentOnInput(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      bracketMatching(),
      closeBrackets(),
      movedTail,
      stepOverMoved,
      highlightActiveLine(),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
      language.of(mode()),
      EditorView.theme({
        '&': { minHeight: '12rem', maxHeight: '60vh' },
        '.cm-scroller': { fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace', lineHeight: '1.5' },
        '.cm-content, .cm-gutter': { minHeight: '12rem' },
      }),
      // The portal's styles know the editor by this class (CodeMirror rewrites the element's classes as it updates).
      EditorView.editorAttributes.of({ class: 'code-editor' }),
      EditorView.contentAttributes.of({
        'aria-label': textarea.labels?.[0]?.textContent ?? 'Code',
        'aria-describedby': textarea.getAttribute('aria-describedby') ?? '',
        'aria-multiline': 'true',
      }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        textarea.dispatchEvent(new Event('input', { bubbles: true }));
      }),
    ],
  });
  textarea.hidden = true;
  textarea.after(view.dom);
  // Changing the language keeps the program: only the highlighting and indentation rules change.
  select?.addEventListener('change', () => view.dispatch({ effects: language.reconfigure(mode()) }));
  return view;
}

// The script is loaded (deferred) only on a coding question's page: it takes over each program field.
for (const textarea of document.querySelectorAll('textarea.code')) attach(textarea, textarea.closest('.coding')?.querySelector('select[name="language"]'));
