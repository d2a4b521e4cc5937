// Charts of the console as server-rendered SVG: no script, nothing inline that the CSP forbids,
// built from numbers through the escaping template layer. Each chart is an <svg role="img"> with
// a text label, followed by the same numbers as a table for screen readers and for print.
import { html, type SafeHtml } from '../html/html.js';

export interface Bar {
  label: string;
  value: number;
  /** A second value drawn as a thin marker on the same row (e.g. the average). */
  marker?: number;
}

/** Horizontal bars on a 0..max scale. */
export function barChart(title: string, bars: Bar[], options: { max?: number; unit?: string; markerLabel?: string } = {}): SafeHtml {
  const max = options.max ?? Math.max(1, ...bars.map((b) => Math.max(b.value, b.marker ?? 0)));
  const unit = options.unit ?? '';
  const rowHeight = 28;
  const labelWidth = 180;
  const width = 560;
  const plot = width - labelWidth - 60;
  const height = bars.length * rowHeight + 8;
  const x = (v: number) => labelWidth + Math.round((Math.max(0, v) / max) * plot);
  const summary = bars.map((b) => `${b.label}: ${b.value}${unit}${b.marker !== undefined ? ` (${options.markerLabel ?? 'marker'} ${b.marker}${unit})` : ''}`).join('; ');
  const rows = bars.map((bar, i) => {
    const y = 4 + i * rowHeight;
    const marker = bar.marker !== undefined && html`<line x1="${x(bar.marker)}" x2="${x(bar.marker)}" y1="${y}" y2="${y + rowHeight - 8}" class="chart-marker"/>`;
    return html`<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end" class="chart-label">${truncate(bar.label, 26)}</text>
<rect x="${labelWidth}" y="${y + 2}" width="${Math.max(1, x(bar.value) - labelWidth)}" height="${rowHeight - 12}" class="chart-bar"/>
${marker}<text x="${x(bar.value) + 6}" y="${y + 15}" class="chart-value">${bar.value}${unit}</text>
`;
  });
  return html`<figure class="chart">
<figcaption>${title}</figcaption>
<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${`${title}: ${summary}`}" preserveAspectRatio="xMinYMin meet">
${rows}</svg>
<div class="visually-hidden-table"><table class="chart-data">
<caption>${title}</caption>
<thead><tr><th scope="col">Item</th><th scope="col">Value</th>${options.markerLabel && html`<th scope="col">${options.markerLabel}</th>`}</tr></thead>
<tbody>${bars.map((b) => html`<tr><th scope="row">${b.label}</th><td>${b.value}${unit}</td>${options.markerLabel && html`<td>${b.marker ?? '-'}${unit}</td>`}</tr>`)}</tbody>
</table></div>
</figure>`;
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
