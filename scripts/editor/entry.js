// The portal's code editor: CodeMirror 6 over a coding question's textarea. Bundled by
// scripts/build-editor.mjs into src/portal/assets/editor.js, which the service serves itself
// (no CDN), and which only a coding question's page loads. How it behaves as a person types:
// typing.js.
// The textarea stays the form's field: the editor writes every change back to it and fires an
// input event, so portal.js saves the program as it saves any answer, and a plain form post
// still sends it (without JavaScript the textarea is the editor).
//
// CodeMirror's styles are a <style> element it writes itself; the page's Content-Security-Policy
// allows it through the response's style nonce (EditorView.cspNonce), which the page names in
// <meta name="style-nonce">. No 'unsafe-inline'.
import { EditorView } from '@codemirror/view';
import { Compartment } from '@codemirror/state';
import { indentUnit } from '@codemirror/language';
import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';
import { styleNonce, typing } from './typing.js';

// Each language with the indentation its programs usually have: two spaces in JavaScript, four in Python.
const languages = { javascript: () => [javascript(), indentUnit.of('  ')], python: () => [python(), indentUnit.of('    ')] };

function attach(textarea, select) {
  const language = new Compartment();
  const mode = () => (languages[select?.value] ?? languages.javascript)();
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      typing(styleNonce()),
      language.of(mode()),
      EditorView.theme({
        '&': { minHeight: '12rem', maxHeight: '60vh' },
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
