// What a person typing into either of the service's editors meets (the portal's code editor,
// entry.js, and the console's content editor, content-entry.js), chosen for someone writing a
// program or a document rather than for an IDE:
// - a monospace font, line numbers beside the text, the active line marked;
// - Enter indents the next line as the block asks (after Python's `:`, JavaScript's `{`, a YAML
//   key), and Backspace in the indentation takes one level away;
// - Tab indents; Escape then Tab leaves the editor (CodeMirror's tab focus mode), so the keyboard
//   is never trapped;
// - an opened bracket or quote is closed, and typing the closing one steps over it, on the same
//   line (CodeMirror) and on the line below when Enter moved it there (ours, below): what the
//   person types is never doubled;
// - no completion pop-up: Enter is always a new line.
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars, keymap, lineNumbers } from '@codemirror/view';
import { Annotation, EditorState, StateField } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';

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

/**
 * This response's style nonce, which CodeMirror's <style> element must carry to pass the page's
 * Content-Security-Policy: named by <meta name="style-nonce"> (the portal) or by the editor's own
 * script element (the console).
 */
export function styleNonce(script) {
  return document.querySelector('meta[name="style-nonce"]')?.nonce || script?.nonce || '';
}

/** The editing behaviour both editors share (their language, indentation unit and styles are their own). */
export function typing(nonce) {
  return [
    EditorView.cspNonce.of(nonce),
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
    EditorView.theme({ '.cm-scroller': { fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace', lineHeight: '1.5' } }),
  ];
}
