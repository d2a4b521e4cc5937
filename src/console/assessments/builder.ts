// The question builder's routes: they translate forms into the assessments module's commands
// (editDraftByForm, publishDraft, discardDraft) on the same draft as the file editor, and its
// refusals back into the form with the problems beside their fields.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runCommand } from '../../domain/command.js';
import { DomainError, invalidInput, notFound } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import {
  builderCheck,
  builderDocument,
  categoriesOf,
  documentYaml,
  editDraftByForm,
  fieldOfPath,
  isQuestionType,
  newQuestionValues,
  questionErrors,
  questionValues,
  questionsOf,
  settingsErrors,
  settingsValues,
  type BuilderEdit,
  type DraftDocument,
  type FormProblem,
  type FormValues,
  type QuestionType,
} from '../../modules/assessments/builder.js';
import { parseAssessment } from '../../modules/assessments/content.js';
import { practiceOf, type QuestionContent } from '../../modules/assessments/content-schema.js';
import { DRAFT_MAX_BYTES, discardDraft, listVersions, publishDraft, uploadMedia, type DraftTarget } from '../../modules/assessments/drafts.js';
import { MEDIA_MAX_BYTES } from '../../modules/assessments/media.js';
import { currentContent } from '../../modules/assessments/repository.js';
import { layoutNotes } from '../../modules/attempts/layout.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { questionField } from '../../views/questions.js';
import { html } from '../../html/html.js';
import { builderBody, builderPath, builderPreviewNote, questionBody, type BuilderQuestion } from './builder-views.js';
import { draftTargetOf, type EditorRouteDeps } from './editor.js';
import { previewBody } from './views.js';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'assets');
const authorOf = (request: FastifyRequest) => `user:${request.consoleUser!.user.email.toLowerCase()}`;

type Body = Record<string, unknown>;
/** A form's string fields (anything else a client sends is not a field of these forms). */
const formValues = (body: Body | undefined): FormValues => {
  const values: FormValues = {};
  for (const [key, v] of Object.entries(body ?? {})) if (typeof v === 'string' && key !== '_csrf' && key !== 'instance' && key !== 'action') values[key] = v;
  return values;
};
const prompt = (q: Record<string, unknown>) => {
  const text = typeof q.prompt === 'string' ? q.prompt.replace(/\s+/g, ' ').trim() : '';
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
};

export function registerBuilderRoutes(scope: FastifyInstance, deps: EditorRouteDeps): void {
  const { db } = deps;

  const targetOf = (instance: Instance, id: string | null) => draftTargetOf(db, instance, id);
  const here = (instance: Instance, id: string | null, query = '', hash = '') =>
    `${builderPath(id === null ? null : encodeURIComponent(id))}?instance=${encodeURIComponent(instance.name)}${query ? `&${query}` : ''}${hash}`;

  async function nameOf(target: DraftTarget & { uuid: string | null }, doc: DraftDocument | undefined) {
    if (target.uuid !== null) return (await currentContent(db, target.uuid)).name;
    return typeof doc?.name === 'string' && doc.name !== '' ? doc.name : 'New assessment';
  }

  const NOTICES: Record<string, string> = {
    settings: 'Settings saved in the draft.',
    question: 'Question saved in the draft.',
    moved: 'Question moved.',
    deleted: 'Question deleted from the draft.',
    discarded: 'Draft discarded.',
  };
  const noticeOf = (q: { saved?: string; published?: string; outcome?: string }) => {
    if (q.published !== undefined && /^\d{1,9}$/.test(q.published))
      return q.outcome === 'unchanged'
        ? `Nothing changed: version ${q.published} stays published.`
        : `Published version ${q.published}. Candidates invited from now on get it; those who started keep theirs.`;
    return q.saved !== undefined ? NOTICES[q.saved] : undefined;
  };

  async function overview(
    request: FastifyRequest,
    reply: FastifyReply,
    instance: Instance,
    id: string | null,
    refused?: { values: FormValues; problems: FormProblem[] },
    notice?: string,
    status = refused ? 400 : 200,
  ) {
    const target = await targetOf(instance, id);
    const { doc, draft } = await builderDocument(db, target, authorOf(request));
    const name = await nameOf(target, doc);
    const currentVersion = target.uuid !== null ? (await listVersions(db, target.uuid)).find((v) => v.current)?.version : undefined;
    const questions: BuilderQuestion[] = doc
      ? questionsOf(doc).map((q, i) => ({
          number: i + 1,
          id: String(q.id ?? ''),
          type: String(q.type ?? ''),
          category: String(q.category ?? ''),
          prompt: prompt(q),
          problems: questionErrors(doc, i).length,
        }))
      : [];
    const draftErrors = doc ? (await builderCheck(db, target, doc)).errors : undefined;
    const settings = refused ?? {
      values: doc ? settingsValues(doc) : {},
      problems: doc ? settingsErrors(doc).map((e) => ({ name: fieldOfPath(e.path, Object.keys(settingsValues(doc))), detail: e.message })) : [],
    };
    const body = builderBody({
      instance: instance.name,
      csrf: request.consoleUser!.csrfToken,
      assessment: target.assessment,
      name,
      settings,
      questions,
      categories: doc ? categoriesOf(doc).map((c) => String(c.id ?? '')) : [],
      draft,
      currentVersion,
      draftErrors,
      refused: refused !== undefined,
      notice,
      unreadable: doc === undefined,
    });
    return deps.render(request, reply, instance, target.assessment === null ? 'New assessment' : `Build ${name}`, body, status);
  }

  async function questionPage(
    request: FastifyRequest,
    reply: FastifyReply,
    instance: Instance,
    id: string | null,
    number: number | null,
    type: unknown,
    refused?: { values: FormValues; problems: FormProblem[] },
    media?: { uploaded?: string; problems?: FormProblem[] },
  ) {
    const target = await targetOf(instance, id);
    const { doc } = await builderDocument(db, target, authorOf(request));
    if (!doc) return reply.redirect(here(instance, id), 303);
    const questions = questionsOf(doc);
    let questionType: QuestionType;
    let form: { values: FormValues; problems: FormProblem[] };
    if (number === null) {
      if (!isQuestionType(type))
        throw invalidInput([{ in: 'query', name: 'type', detail: 'must be a question type: single-choice, multiple-choice, short-answer, free-text, likert, ranking or coding' }]);
      questionType = type;
      form = refused ?? { values: newQuestionValues(doc, type), problems: [] };
    } else {
      const q = questions[number - 1];
      if (!q) throw notFound('No such question in the draft');
      if (!isQuestionType(q.type)) throw invalidInput([{ in: 'path', name: 'question', detail: 'has no type the builder knows: edit it as a file' }]);
      questionType = q.type;
      const values = questionValues(q);
      form = refused ?? { values, problems: questionErrors(doc, number - 1).map((e) => ({ name: fieldOfPath(e.path, Object.keys(values)), detail: e.message })) };
    }
    const body = questionBody({
      instance: instance.name,
      csrf: request.consoleUser!.csrfToken,
      assessment: target.assessment,
      name: await nameOf(target, doc),
      number,
      type: questionType,
      form,
      categories: categoriesOf(doc).map((c) => String(c.id ?? '')),
      refused: refused !== undefined && media === undefined,
      media,
    });
    const title = number === null ? 'New question' : `Question ${number}`;
    return deps.render(request, reply, instance, title, body, (refused && !media) || media?.problems ? 400 : 200);
  }

  /** A form's refusal (invalid, with fields), or the error again. */
  const problemsOf = (error: unknown): FormProblem[] => {
    if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
    return error.fields.map((f) => ({ name: f.name, detail: f.detail }));
  };

  const edit = (request: FastifyRequest, target: DraftTarget, e: BuilderEdit) =>
    runCommand(db, commandRequest(request, deps.now()), (ctx) => editDraftByForm(ctx, { ...target, edit: e }), 'assessment_draft_save');

  type Query = { instance?: string; saved?: string; published?: string; outcome?: string; type?: string };
  const idOf = (params: { id?: string }) => params.id ?? null;
  const numberOf = (value: string) => {
    if (value === 'new') return null;
    if (!/^[1-9]\d{0,3}$/.test(value)) throw notFound('No such question in the draft');
    return Number(value);
  };

  for (const base of ['/console/assessments/new/build', '/console/assessments/:id/build']) {
    scope.get<{ Params: { id?: string }; Querystring: Query }>(base, async (request, reply) =>
      overview(request, reply, deps.instanceOf(request, request.query.instance, 'manage'), idOf(request.params), undefined, noticeOf(request.query)),
    );

    scope.post<{ Params: { id?: string }; Body: Body }>(base, async (request, reply) => {
      const body = request.body ?? {};
      const instance = deps.instanceOf(request, body.instance, 'manage');
      const id = idOf(request.params);
      const target = await targetOf(instance, id);
      const number = typeof body.question === 'string' && /^\d{1,4}$/.test(body.question) ? Number(body.question) : NaN;
      const request_ = commandRequest(request, deps.now());
      switch (body.action) {
        case 'settings':
          try {
            await edit(request, target, { kind: 'settings', values: formValues(body) });
          } catch (error) {
            return overview(request, reply, instance, id, { values: formValues(body), problems: problemsOf(error) });
          }
          return reply.redirect(here(instance, id, 'saved=settings'), 303);
        case 'up':
        case 'down':
        case 'move': {
          const to = body.action === 'move' ? (typeof body.to === 'string' && /^\d{1,4}$/.test(body.to) ? Number(body.to) : NaN) : body.action === 'up' ? number - 1 : number + 1;
          await edit(request, target, { kind: 'move', index: number - 1, to: to - 1 });
          return reply.redirect(here(instance, id, 'saved=moved', `#question-${to}`), 303);
        }
        case 'delete':
          await edit(request, target, { kind: 'delete', index: number - 1 });
          return reply.redirect(here(instance, id, 'saved=deleted', '#questions-title'), 303);
        case 'discard':
          await runCommand(db, request_, (ctx) => discardDraft(ctx, target), 'assessment_draft_discard');
          return reply.redirect(here(instance, id, 'saved=discarded'), 303);
        case 'publish': {
          let result;
          try {
            const { doc } = await builderDocument(db, target, authorOf(request));
            if (!doc) throw invalidInput([{ in: 'body', name: 'source', detail: 'the draft is not an assessment document the builder can read: edit it as a file' }]);
            result = await runCommand(db, request_, (ctx) => publishDraft(ctx, { ...target, source: documentYaml(doc) }), 'assessment_draft_publish');
          } catch (error) {
            problemsOf(error);
            // The overview lists the draft's problems, as publishing found them.
            return overview(request, reply, instance, id, undefined, 'Nothing was published: the draft has problems (listed below).', 400);
          }
          return reply.redirect(`${builderPath(result.id)}?instance=${encodeURIComponent(instance.name)}&published=${result.version}&outcome=${result.outcome}`, 303);
        }
        default:
          throw invalidInput([{ in: 'body', name: 'action', detail: 'must be settings, up, down, move, delete, publish or discard' }]);
      }
    });

    scope.get<{ Params: { id?: string; n: string }; Querystring: Query }>(`${base}/questions/:n`, async (request, reply) =>
      questionPage(request, reply, deps.instanceOf(request, request.query.instance, 'manage'), idOf(request.params), numberOf(request.params.n), request.query.type),
    );

    /** A question form's post: where, which question, its values. */
    const questionPost = async (request: FastifyRequest<{ Params: { id?: string; n: string }; Body: Body }>) => {
      const body = request.body ?? {};
      const instance = deps.instanceOf(request, body.instance, 'manage');
      const id = idOf(request.params);
      const number = numberOf(request.params.n);
      const target = await targetOf(instance, id);
      const values = formValues(body);
      delete values.type;
      delete values['media-text'];
      return { body, instance, id, number, target, values };
    };

    scope.post<{ Params: { id?: string; n: string }; Body: Body }>(`${base}/questions/:n`, async (request, reply) => {
      const { body, instance, id, number, target, values } = await questionPost(request);
      let saved;
      try {
        saved = await edit(request, target, { kind: 'question', index: number === null ? null : number - 1, type: body.type, values });
      } catch (error) {
        const problems = problemsOf(error);
        if (problems.some((p) => p.name === 'type' || p.name === 'question' || p.name === 'source')) throw error;
        return questionPage(request, reply, instance, id, number, body.type, { values, problems });
      }
      return reply.redirect(here(instance, id, 'saved=question', `#question-${saved.index! + 1}`), 303);
    });

    // A picture, sound or video for the prompt (the form's Upload button posts the whole form as
    // multipart): stored by the module's command with its alternative text, then the form again as
    // it was (not saved) with the file's reference added to the prompt, or the refusal beside its field.
    scope.post<{ Params: { id?: string; n: string }; Body: Body }>(
      `${base}/questions/:n/media`,
      {
        config: {
          multipartOptions: { limits: { fileSize: MEDIA_MAX_BYTES.video + 1, files: 1, fields: 600, fieldSize: DRAFT_MAX_BYTES }, throwFileSizeLimit: false } as never,
        },
        bodyLimit: MEDIA_MAX_BYTES.video + DRAFT_MAX_BYTES * 2,
      },
      async (request, reply) => {
        const { body, instance, id, number, target, values } = await questionPost(request);
        const file = body.file as { bytes?: unknown; filename?: unknown } | undefined;
        try {
          const uploaded = await runCommand(
            db,
            commandRequest(request, deps.now()),
            (ctx) => uploadMedia(ctx, { ...target, fileName: file?.filename, bytes: file?.bytes, text: body['media-text'] }),
            'assessment_media_upload',
          );
          values.prompt = `${(values.prompt ?? '').trimEnd()}\n\n${uploaded.reference}`.trimStart();
          return questionPage(request, reply, instance, id, number, body.type, { values, problems: [] }, { uploaded: uploaded.reference });
        } catch (error) {
          const problems = problemsOf(error).map((p) => ({ ...p, name: p.name === 'text' ? 'media-text' : p.name }));
          return questionPage(request, reply, instance, id, number, body.type, { values, problems: [] }, { problems });
        }
      },
    );

    // The draft as a candidate sees it: the portal's question markup (through previewBody); with
    // problems left, the questions that have none of their own.
    scope.get<{ Params: { id?: string }; Querystring: Query }>(`${base}/preview`, async (request, reply) => {
      const instance = deps.instanceOf(request, request.query.instance, 'manage');
      const id = idOf(request.params);
      const target = await targetOf(instance, id);
      const { doc } = await builderDocument(db, target, authorOf(request));
      if (!doc) return reply.redirect(here(instance, id), 303);
      const parsed = parseAssessment(documentYaml(doc));
      const shown = parsed.ok ? parsed.content.questions : (questionsOf(doc).filter((_, i) => questionErrors(doc, i).length === 0) as unknown as QuestionContent[]);
      const questions = shown.map((q, i) => questionField(q, undefined, `p${i + 1}-`, true));
      const content = parsed.ok
        ? parsed.content
        : {
            name: typeof doc.name === 'string' && doc.name !== '' ? doc.name : 'New assessment',
            description: typeof doc.description === 'string' ? doc.description : '',
            durationMinutes: typeof doc.durationMinutes === 'number' ? doc.durationMinutes : 0,
            instructions: typeof doc.instructions === 'string' ? doc.instructions : undefined,
          };
      const practice = parsed.ok ? practiceOf(parsed.content) : undefined;
      const fairness = parsed.ok ? { notes: layoutNotes(parsed.content), practice: practice && questionField(practice, undefined, 'practice-', true) } : { notes: [] as string[] };
      const body = html`${builderPreviewNote({ instance: instance.name, assessment: target.assessment }, parsed.ok ? [] : parsed.errors)}${previewBody(
        instance.name,
        content,
        questions,
        parsed.ok ? parsed.content.typingTest?.passage : undefined,
        fairness,
      )}`;
      return deps.render(request, reply, instance, `Preview of ${content.name}`, body);
    });
  }

  const script = readFileSync(path.join(ASSETS, 'assessment-builder.js'));
  scope.get('/console/assets/assessment-builder.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(script),
  );
}
