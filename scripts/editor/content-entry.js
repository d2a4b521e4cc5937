// The console's assessment editor: CodeMirror 6 (YAML) over the editor page's textarea, with the
// content checked as you type. Bundled by scripts/build-editor.mjs into
// src/console/assets/content-editor.js, which the service serves itself (no CDN); only the editor
// page loads it.
// The textarea stays the form's field (the editor writes every change back to it), so Save,
// Publish and Preview post what is shown. The check posts the text to the console's validate
// endpoint (CodeMirror's linter waits for a pause in typing), shows the problems in the importer's
// words with their lines, marks them in the editor, refreshes the outline and, when the content
// has no problems, the preview. How it behaves as a person types: typing.js (as the portal's code
// editor does).
import { EditorView } from '@codemirror/view';
import { indentUnit } from '@codemirror/language';
import { yaml } from '@codemirror/lang-yaml';
import { linter, lintGutter } from '@codemirror/lint';
import { styleNonce, typing } from './typing.js';

const script = document.currentScript;

function diagnosticsOf(doc, errors) {
  return errors.map((e) => {
    const line = doc.line(Math.min(Math.max(e.line || 1, 1), doc.lines));
    const from = Math.min(line.from + Math.max((e.column || 1) - 1, 0), line.to);
    return { from, to: Math.max(from, line.to), severity: 'error', message: `${e.path || '(document)'} ${e.message}` };
  });
}

function attach(form) {
  const textarea = form.querySelector('textarea[name="source"]');
  const checkPanel = document.getElementById('editor-check');
  const outlinePanel = document.getElementById('editor-outline');
  const previewButton = form.querySelector('button[value="preview"]');
  const field = (name) => form.querySelector(`input[name="${name}"]`)?.value ?? '';

  const check = async (view) => {
    const source = view.state.doc.toString();
    const body = new URLSearchParams({ _csrf: field('_csrf'), instance: field('instance'), assessment: field('assessment'), source });
    let result;
    try {
      const response = await fetch(form.getAttribute('data-validate'), { method: 'POST', body, credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (!response.headers.get('content-type')?.startsWith('application/json')) throw new Error(`status ${response.status}`);
      result = await response.json();
    } catch (error) {
      checkPanel.textContent = `The content could not be checked just now (${error.message}); it is checked again when you publish.`;
      return [];
    }
    // The panels' markup comes from the server, built (and escaped) by the same code as the page's.
    checkPanel.innerHTML = result.check;
    outlinePanel.innerHTML = result.outline;
    if (source !== view.state.doc.toString()) return [];
    if (result.errors.length === 0 && previewButton) form.requestSubmit(previewButton);
    return diagnosticsOf(view.state.doc, result.errors);
  };

  // CodeMirror's styles are a <style> element it writes itself; the page's Content-Security-Policy
  // allows it through the response's style nonce, which the script element carries.
  const host = document.createElement('div');
  host.className = 'content-editor';
  const view = new EditorView({
    parent: host,
    doc: textarea.value,
    extensions: [
      typing(styleNonce(script)),
      yaml(),
      indentUnit.of('  '),
      lintGutter(),
      linter(check, { delay: 500 }),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': 'Content (YAML)', 'aria-multiline': 'true', tabindex: '0' }),
      EditorView.theme({ '&': { height: '100%' } }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) textarea.value = update.state.doc.toString();
      }),
    ],
  });
  textarea.hidden = true;
  textarea.after(host);
  // The preview follows the text: the first one at once.
  if (previewButton) form.requestSubmit(previewButton);
  return view;
}

const form = document.getElementById('editor-form');
if (form) window.contentEditor = attach(form);
