// The candidate report as a PDF (A4), drawn with PDFKit on the server: the same figures, category
// scores, answers and proctoring timeline as the report page, without a browser. Text is set in
// DejaVu Sans when the machine has it (any script it covers), else in Helvetica with the
// characters Helvetica cannot show replaced by "?".
import PDFDocument from 'pdfkit';
import { formulaText, markdownBlocks } from '../../html/markdown.js';
import type { AssessmentReport } from '../../modules/attempts/report.js';
import type { CandidateSummary } from '../../modules/candidates/repository.js';
import { SCORE_TEXT, categoryPercentilesText, duration, percentileText, reviewerName, statusText, when } from '../format.js';
import { criteriaText } from '../reviews/views.js';
import { DEJAVU, DEJAVU_BOLD, HAS_DEJAVU, lineWithFormulas as setLine, printable, type OpensImages } from './pdf-lines.js';
import { languageText } from './view.js';

const INK = '#1f2933';
const MUTED = '#52606d';
const BAR = '#1d4ed8';
const MARGIN = 50;

/**
 * The pictures a report's PDF draws: the prompts' pictures as PNG or JPEG by their stored name
 * (`<sha256>.<ext>`), their formulas drawn (`formula-<sha256>.png`), and how far (points) each
 * formula drawn inside a line reaches below the line's baseline, by its name (pictures.ts).
 * What is not among them is printed as its text.
 */
export interface ReportPictures {
  images: Record<string, Uint8Array>;
  depths: Record<string, number>;
}

/** `company`: whose report this is, as candidates see it (brandOf); the instance's name when not given. */
export function reportPdf(
  candidate: CandidateSummary,
  report: AssessmentReport,
  generatedAt: Date,
  company = candidate.instance,
  pictures: ReportPictures = { images: {}, depths: {} },
): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: { Title: `${report.assessmentName}: candidate report`, Author: company, CreationDate: generatedAt },
  });
  if (HAS_DEJAVU) {
    doc.registerFont('body', DEJAVU);
    doc.registerFont('bold', DEJAVU_BOLD);
  } else {
    doc.registerFont('body', 'Helvetica');
    doc.registerFont('bold', 'Helvetica-Bold');
  }
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const width = doc.page.width - 2 * MARGIN;
  const lineWithFormulas = (runs: Parameters<typeof setLine>[1], color = INK) =>
    setLine(doc, runs, { images: pictures.images, depths: pictures.depths, left: MARGIN, width, bottom: doc.page.height - MARGIN, color });
  const text = (value: string, options: { font?: 'body' | 'bold'; size?: number; color?: string; gap?: number } = {}) => {
    doc
      .font(options.font ?? 'body')
      .fontSize(options.size ?? 10)
      .fillColor(options.color ?? INK)
      .text(printable(value), { width });
    if (options.gap) doc.moveDown(options.gap);
  };
  /** Markdown (a prompt) as the page would show it: paragraphs, lists, code, and tables as grids. */
  const markdownText = (source: string) => {
    for (const block of markdownBlocks(source)) {
      if (block.kind === 'paragraph') {
        if (block.runs) lineWithFormulas(block.runs);
        else text(block.text);
        doc.moveDown(0.2);
      } else if (block.kind === 'quote') {
        if (block.runs) lineWithFormulas([{ text: '“' }, ...block.runs, { text: '”' }], MUTED);
        else text(`“${block.text}”`, { color: MUTED });
        doc.moveDown(0.2);
      } else if (block.kind === 'list') {
        block.items.forEach((item, n) => {
          const mark = `${block.ordered ? `${n + 1}.` : '•'} `;
          const runs = block.runs?.[n];
          if (runs?.some((r) => 'formula' in r)) lineWithFormulas([{ text: mark }, ...runs], block.quoted ? MUTED : INK);
          else text(`${mark}${item}`, block.quoted ? { color: MUTED } : {});
        });
      } else if (block.kind === 'code') {
        doc.font('Courier').fontSize(9).fillColor(INK).text(printable(block.text), { width });
        doc.moveDown(0.2);
      } else if (block.kind === 'image') {
        // The picture itself when the report holds it (PNG or JPEG for the PDF), else its alternative text.
        const bytes = pictures.images[block.file];
        if (bytes) {
          // Scaled to fit 320 × 150 pt at most (never enlarged), then the text goes on below it:
          // pdfkit does not move the cursor past a picture placed at a given point.
          const picture = (doc as unknown as OpensImages).openImage(Buffer.from(bytes));
          const scale = Math.min(1, Math.min(width, 320) / picture.width, 150 / picture.height);
          const [w, h] = [picture.width * scale, picture.height * scale];
          if (doc.y + h + 10 > doc.page.height - MARGIN) doc.addPage();
          const top = doc.y;
          doc.image(picture, MARGIN, top, { width: w, height: h });
          doc.y = top + h;
          doc.moveDown(0.3);
          doc.x = MARGIN;
        } else if ('formula' in block) text(formulaText(block.formula), { gap: 0.2 });
        else text(`[Image: ${block.alt}]`, { color: MUTED, gap: 0.2 });
      } else table(block.header, block.rows, block.align);
    }
  };
  /** A Markdown table as a grid: columns share the width, cells wrap, a row moves whole to the next page. */
  const table = (header: string[], rows: string[][], align: ('left' | 'center' | 'right' | null)[]) => {
    const columns = Math.max(1, header.length);
    const column = width / columns;
    const pad = 4;
    const row = (cells: string[], bold: boolean) => {
      doc.font(bold ? 'bold' : 'body').fontSize(9);
      const height = Math.max(...cells.map((c) => doc.heightOfString(printable(c), { width: column - 2 * pad })), 10) + 2 * pad;
      if (doc.y + height > doc.page.height - MARGIN) doc.addPage();
      const y = doc.y;
      cells.forEach((cell, c) => {
        doc
          .font(bold ? 'bold' : 'body')
          .fontSize(9)
          .fillColor(INK)
          .text(printable(cell), MARGIN + c * column + pad, y + pad, { width: column - 2 * pad, align: align[c] ?? 'left' });
      });
      doc
        .moveTo(MARGIN, y + height)
        .lineTo(MARGIN + width, y + height)
        .lineWidth(bold ? 1 : 0.5)
        .stroke(bold ? INK : '#c3c9d1');
      doc.x = MARGIN;
      doc.y = y + height;
    };
    row(header, true);
    for (const cells of rows)
      row(
        Array.from({ length: columns }, (_, c) => cells[c] ?? ''),
        false,
      );
    doc.moveDown(0.4);
  };
  const heading = (value: string) => {
    if (doc.y > doc.page.height - MARGIN - 80) doc.addPage();
    doc.moveDown(0.8);
    text(value, { font: 'bold', size: 13, gap: 0.3 });
  };

  const record = report.record;
  const name = candidate.email === null ? 'Erased candidate' : `${candidate.firstName} ${candidate.lastName}`;
  text(`Candidate report · ${company}`, { font: 'bold', size: 11, color: MUTED, gap: 0.2 });
  text(name, { font: 'bold', size: 20 });
  text(`${candidate.email ?? 'Personal data erased'} · candidate id ${candidate.id} · instance ${candidate.instance}`, { color: MUTED, gap: 0.6 });
  text(report.assessmentName, { font: 'bold', size: 15, gap: 0.4 });

  const scored = record.assessmentStatus === 'COMPLETED' && record.scoreStatus !== 'PENDING';
  const figures: [string, string][] = [
    ['Status', statusText(record.assessmentStatus)],
    ['Result', record.assessmentStatus === 'COMPLETED' ? (SCORE_TEXT[record.scoreStatus] ?? record.scoreStatus) : '-'],
    ['Total score', scored ? `${record.totalScore} %` : '-'],
    ['Thresholds', `pass ${report.passScore} %, low pass ${report.lowPassScore} %`],
    ['Percentile', percentileText(report)],
    ...(categoryPercentilesText(report) ? [['Category percentiles', categoryPercentilesText(report)] as [string, string]] : []),
    ['Completion', `${record.completion} %`],
    ['Typing', report.attempt?.typingWpm != null ? `${record.typingSpeed} wpm, ${report.attempt.typingAccuracy ?? 0} % accurate` : '-'],
    ['Time taken', duration(report)],
    ['Language', languageText(report)],
    ['Started', report.attempt ? when(report.attempt.startedAt) : '-'],
    ['Finished', report.attempt?.finishedAt ? `${when(report.attempt.finishedAt)} (${report.attempt.endReason === 'time-limit' ? 'time ran out' : 'submitted'})` : '-'],
    ['Red flag', record.redFlag ? `yes: ${report.redFlagReasons.join('; ')}` : 'no'],
    ['Risk', report.attempt ? `${report.risk.level}${report.risk.reasons.length > 0 ? `: ${report.risk.reasons.join('; ')}` : ''}` : '-'],
  ];
  for (const [label, value] of figures) {
    const y = doc.y;
    doc.font('bold').fontSize(10).fillColor(MUTED).text(label, MARGIN, y, { width: 110 });
    doc
      .font('body')
      .fontSize(10)
      .fillColor(INK)
      .text(printable(value), MARGIN + 120, y, { width: width - 120 });
    doc.x = MARGIN;
    doc.moveDown(0.15);
  }

  if (scored && record.categoryScores.length > 0) {
    heading('Score per category');
    text('Bars: this candidate; line: the average of everyone who completed this version.', { size: 9, color: MUTED, gap: 0.4 });
    const labelWidth = 150;
    const barWidth = width - labelWidth - 50;
    for (const category of record.categoryScores) {
      if (doc.y > doc.page.height - MARGIN - 30) doc.addPage();
      const y = doc.y;
      const value = Math.max(0, Math.min(100, Number(category.score)));
      // A long name wraps in its column (never over the bar); the row is as tall as the name.
      doc.font('body').fontSize(10);
      const labelHeight = doc.heightOfString(printable(category.name), { width: labelWidth - 10 });
      doc.fillColor(INK).text(printable(category.name), MARGIN, y, { width: labelWidth - 10 });
      doc.rect(MARGIN + labelWidth, y, barWidth, 11).fill('#e4e7eb');
      doc.rect(MARGIN + labelWidth, y, (barWidth * value) / 100, 11).fill(BAR);
      const average = report.categoryAverages[category.name];
      if (average !== undefined) {
        const x = MARGIN + labelWidth + (barWidth * Math.max(0, Math.min(100, average))) / 100;
        doc
          .moveTo(x, y - 2)
          .lineTo(x, y + 13)
          .lineWidth(1.5)
          .stroke(INK);
      }
      doc
        .font('body')
        .fontSize(10)
        .fillColor(INK)
        .text(`${value} %`, MARGIN + labelWidth + barWidth + 8, y, { width: 42, lineBreak: false });
      doc.x = MARGIN;
      doc.y = y + Math.max(18, labelHeight + 6);
    }
  }

  if (report.questions.length > 0) {
    heading('Answers');
    // The questions this candidate was given, in their order; how they were drawn or shuffled.
    if (report.layoutNotes.length > 0) text(`As this candidate saw them: ${report.layoutNotes.join('; ')}.`, { size: 9, color: MUTED, gap: 0.5 });
    report.questions.forEach((q, index) => {
      if (doc.y > doc.page.height - MARGIN - 60) doc.addPage();
      text(`Question ${index + 1}`, { font: 'bold' });
      markdownText(q.prompt);
      text(`${q.category} · ${q.type} · ${q.credit === null ? 'awaiting review' : `${Math.round(q.credit * 1000) / 10} % credit`}`, { size: 9, color: MUTED });
      if (!q.answered) text('Not answered', { color: MUTED });
      else if (q.likert) {
        const { labels, chosen, reverse, score } = q.likert;
        text(
          `Chose: ${chosen === null ? '-' : (labels[chosen] ?? String(chosen))}${score === null ? '' : ` (keyed score ${score} of ${labels.length}${reverse ? ', reverse-keyed' : ''})`}`,
        );
      } else if (q.ranking) {
        text(`Order given: ${(q.ranking.given ?? []).map((o, i) => `${i + 1}. ${o}`).join('   ')}`);
        text(`Key: ${q.ranking.key.map((o, i) => `${i + 1}. ${o}`).join('   ')}`, { size: 9, color: MUTED });
      } else if (q.options.length > 0) {
        for (const o of q.options) text(`${o.chosen ? '[x]' : '[ ]'} ${o.text}${o.correct ? '  (correct)' : ''}${o.chosen && !o.correct ? '  (wrong)' : ''}`);
      } else {
        text(q.text ?? '');
        if (q.accepted.length > 0) text(`Accepted: ${q.accepted.join(' | ')}`, { size: 9, color: MUTED });
      }
      // Each reviewer's review (score, rubric levels, comment), then the final score and who made it.
      const alone = q.reviews.length === 1 && !q.rubric && q.review?.reviewer === q.reviews[0]!.reviewer;
      if (!alone) {
        for (const r of q.reviews) {
          text(`Review: ${r.score} / 100 by ${reviewerName(r.reviewer)} on ${when(r.reviewedAt)}`, { size: 9, color: MUTED });
          for (const level of criteriaText(q.rubric, r.criteria)) text(`  ${level}`, { size: 9 });
          if (r.comment) text(`  Comment: ${r.comment}`, { size: 9 });
        }
      }
      if (q.review) {
        const by = q.settlement
          ? `${reviewerName(q.settlement.settledBy)} (lead)`
          : q.review.reviewer?.startsWith('mean of')
            ? `the ${q.review.reviewer}`
            : q.review.reviewer && reviewerName(q.review.reviewer);
        text(`${alone ? 'Reviewed' : 'Final'}: ${q.review.score} / 100 on ${when(q.review.reviewedAt)}${by ? ` by ${by}` : ''}`, { size: 9, color: MUTED });
        if (q.review.comment) text(`${q.settlement ? "Lead's" : "Reviewer's"} comment: ${q.review.comment}`, { size: 9 });
      }
      doc.moveDown(0.5);
    });
  }

  if (report.similar.length > 0) {
    heading('Similar answers');
    // A report link's PDF names no other candidate: their names and answers stay in the console.
    for (const pair of report.similar) text(`${Math.round(pair.score * 100)} % alike to another candidate's answer: ${pair.prompt}`, { size: 9 });
    text('Reviewers compare the answers side by side, with the shared parts marked, in the console.', { size: 9, color: MUTED, gap: 0.3 });
  }

  if (report.attempt) {
    heading('Proctoring timeline');
    text(`First seen from ${report.attempt.firstAddress ?? 'unknown address'} with ${report.attempt.firstAgent ?? 'an unknown browser'}.`, { gap: 0.3 });
    if (report.signals.length === 0) text('No signals were recorded.');
    for (const s of report.signals) {
      const dismissed = s.dismissed ? `  dismissed by ${reviewerName(s.dismissed.by)}: ${s.dismissed.reason}` : '';
      text(`${when(s.at)}  ${s.kind}  ${s.detail}  (${s.source})${dismissed}`, { size: 9, color: s.dismissed ? MUTED : INK });
    }
    if (report.notStored.length > 0) {
      text(
        `Only the first ${report.signals.length} signals are kept one by one; after them: ${report.notStored.map((k) => `${k.count} × ${k.kind}`).join(', ')}, counted toward the red flag.`,
        { size: 9 },
      );
    }
    if (report.redFlagReasons.length > 0) text(`Rules that raised the red flag: ${report.redFlagReasons.join('; ')}.`, { gap: 0.3 });
  }

  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('body')
      .fontSize(8)
      .fillColor(MUTED)
      .text(printable(`${name} · ${report.assessmentName} · generated ${when(generatedAt)} · page ${i + 1} of ${range.count}`), MARGIN, doc.page.height - 35, {
        width,
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done;
}
