// The portal's code editor: CodeMirror 6 over a coding question's textarea. Bundled by
// scripts/build-editor.mjs into src/portal/assets/editor.js, which the service serves itself
// (no CDN), and which only a coding question's page loads.
// The textarea stays the form's field: the editor writes every change back to it and fires an
// input event, so portal.js saves the program as it saves any answer, and a plain form post
// still sends it.
import { basicSetup, EditorView } from 'codemirror';
import { Compartment } from '@codemirror/state';
import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';

const languages = { javascript: () => javascript(), python: () => python() };

function attach(textarea, select) {
  const language = new Compartment();
  const mode = () => (languages[select?.value] ?? languages.javascript)();
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      language.of(mode()),
      EditorView.contentAttributes.of({ 'aria-label': textarea.labels?.[0]?.textContent ?? 'Code', 'aria-describedby': textarea.getAttribute('aria-describedby') ?? '' }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        textarea.dispatchEvent(new Event('input', { bubbles: true }));
      }),
    ],
  });
  textarea.hidden = true;
  textarea.after(view.dom);
  view.dom.classList.add('code-editor');
  select?.addEventListener('change', () => view.dispatch({ effects: language.reconfigure(mode()) }));
  return view;
}

// The script is loaded (deferred) only on a coding question's page: it takes over each program field.
for (const textarea of document.querySelectorAll('textarea.code')) attach(textarea, textarea.closest('.coding')?.querySelector('select[name="language"]'));
