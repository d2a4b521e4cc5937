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

/**
 * Horizontal bars on a 0..max scale, each under its label: a label has the chart's whole width
 * (a long category name is not cut to fit a column beside the bar), and one longer than that ends
 * in "…" with the full text in its tooltip and in the table below.
 */
export function barChart(
  title: string,
  bars: Bar[],
  options: {
    max?: number;
    unit?: string;
    markerLabel?: string;
    /** Draws each bar on a track of the whole scale (0..max) with the scale's ticks under the rows, so that the scale is seen. */
    scale?: boolean;
  } = {},
): SafeHtml {
  const max = options.max ?? Math.max(1, ...bars.map((b) => Math.max(b.value, b.marker ?? 0)));
  const unit = options.unit ?? '';
  const rowHeight = 44;
  const width = 560;
  const plot = width - 70;
  const axis = options.scale ? 28 : 0;
  const height = bars.length * rowHeight + 4 + axis;
  const x = (v: number) => Math.round((Math.max(0, v) / max) * plot);
  const summary = bars.map((b) => `${b.label}: ${b.value}${unit}${b.marker !== undefined ? ` (${options.markerLabel ?? 'marker'} ${b.marker}${unit})` : ''}`).join('; ');
  const rows = bars.map((bar, i) => {
    const y = 4 + i * rowHeight;
    const marker = bar.marker !== undefined && html`<line x1="${x(bar.marker)}" x2="${x(bar.marker)}" y1="${y + 18}" y2="${y + rowHeight - 4}" class="chart-marker"/>`;
    const track = options.scale && html`<rect x="0" y="${y + 20}" width="${plot}" height="${rowHeight - 28}" class="chart-track"/>`;
    return html`<text x="0" y="${y + 13}" class="chart-label">${truncate(bar.label, 70)}<title>${bar.label}</title></text>
${track}<rect x="0" y="${y + 20}" width="${Math.max(1, x(bar.value))}" height="${rowHeight - 28}" class="chart-bar"/>
${marker}<text x="${x(bar.value) + 6}" y="${y + 32}" class="chart-value">${bar.value}${unit}</text>
`;
  });
  const top = 4 + bars.length * rowHeight;
  const ticks =
    options.scale &&
    [0, max / 2, max].map(
      (v, i) => html`<line x1="${x(v)}" x2="${x(v)}" y1="4" y2="${top + 4}" class="chart-grid"/>
<text x="${x(v)}" y="${top + 20}" class="chart-tick" text-anchor="${i === 0 ? 'start' : i === 2 ? 'end' : 'middle'}">${v}</text>
`,
    );
  return html`<figure class="chart">
<figcaption>${title}${options.scale && html` <span class="hint">(scale 0 to ${max}${unit})</span>`}</figcaption>
<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${`${title}${options.scale ? ` (scale 0 to ${max}${unit})` : ''}: ${summary}`}" preserveAspectRatio="xMinYMin meet">
${rows}${ticks}</svg>
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
