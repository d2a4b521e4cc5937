// Charts of the console as server-rendered SVG: no script, nothing inline that the CSP forbids,
// built from numbers through the escaping template layer. Each chart is an <svg role="img"> with
// a text label, followed by the same numbers as a table for screen readers and for print.
import { scaleLinear } from 'd3-scale';
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

export interface Column {
  /** What the column counts, in words (the table's row header, the tooltip). */
  label: string;
  value: number;
  /** The label under the column on the axis; empty: none (a long series labels every few). */
  tick?: string;
}

/**
 * Vertical columns over a continuous domain (a histogram of scores, counts per day), with
 * optional reference lines at values of the domain (a pass mark), each line dashed and named in
 * text, so that none is told by colour alone. Scales and the count axis's ticks come from
 * d3-scale; the markup is the escaping template layer's. Each column's count is written on it
 * when there is room, and all of them are in the table that follows.
 */
export function columnChart(
  title: string,
  columns: Column[],
  options: {
    /** The domain the columns span, evenly (default 0..columns.length). */
    domain?: [number, number];
    lines?: { at: number; label: string }[];
    /** What the count axis counts (e.g. "candidates"). */
    unit: string;
    /** What a column's label is, for the table's first column. */
    item: string;
    /** Values of the domain labelled on the axis, at their place (a histogram's bin edges); else each column's `tick`. */
    axis?: number[];
  },
): SafeHtml {
  const width = 560;
  const height = 254;
  const left = 34;
  // Room for the last axis label, centred on the plot's right edge, when phones draw it larger.
  const right = 28;
  // Room above the plot for the lines' names, a row each, high enough for the phone's larger words.
  const top = 56;
  const bottom = 28;
  const [d0, d1] = options.domain ?? [0, columns.length];
  const x = scaleLinear()
    .domain([d0, d1])
    .range([left, width - right]);
  const max = Math.max(1, ...columns.map((c) => c.value));
  const y = scaleLinear()
    .domain([0, max])
    .nice(4)
    .range([height - bottom, top]);
  const step = (d1 - d0) / Math.max(1, columns.length);
  const columnWidth = Math.max(1, x(d0 + step) - x(d0) - 2);
  const ticks = y.ticks(4).filter((t) => Number.isInteger(t));
  const grid = ticks.map(
    (t) => html`<line x1="${left}" x2="${width - right}" y1="${y(t)}" y2="${y(t)}" class="chart-grid"/>
<text x="${left - 4}" y="${y(t) + 4}" class="chart-tick" text-anchor="end">${t}</text>
`,
  );
  const bars = columns.map((c, i) => {
    const cx = x(d0 + i * step) + 1;
    const h = y(0) - y(c.value);
    return html`<rect x="${cx}" y="${y(c.value)}" width="${columnWidth}" height="${Math.max(c.value > 0 ? 1 : 0, h)}" class="chart-bar"><title>${`${c.label}: ${c.value} ${options.unit}`}</title></rect>
${c.value > 0 && columnWidth >= 14 && html`<text x="${cx + columnWidth / 2}" y="${y(c.value) - 4}" class="chart-value" text-anchor="middle">${c.value}</text>`}
${!options.axis && c.tick && html`<text x="${cx + columnWidth / 2}" y="${height - bottom + 16}" class="chart-tick" text-anchor="middle">${c.tick}</text>`}
`;
  });
  const axis = (options.axis ?? []).map(
    (v) => html`<line x1="${x(v)}" x2="${x(v)}" y1="${y(0)}" y2="${y(0) + 4}" class="chart-axis"/>
<text x="${x(v)}" y="${height - bottom + 16}" class="chart-tick" text-anchor="middle">${v}</text>
`,
  );
  // Lines' names on rows of their own above the plot (two lines close together do not overlap),
  // each beside its line, on its left when the line is in the right half.
  const lines = (options.lines ?? []).map((l, i) => {
    const onLeft = x(l.at) > (left + width - right) / 2;
    return html`<line x1="${x(l.at)}" x2="${x(l.at)}" y1="${top - 48 + i * 22}" y2="${height - bottom}" class="chart-line"/>
<text x="${x(l.at) + (onLeft ? -4 : 4)}" y="${top - 32 + i * 22}" class="chart-tick" text-anchor="${onLeft ? 'end' : 'start'}">${l.label}</text>
`;
  });
  const said = `${title}: ${columns.map((c) => `${c.label} ${c.value}`).join('; ')}${(options.lines ?? []).map((l) => `; ${l.label}`).join('')}`;
  return html`<figure class="chart">
<figcaption>${title}</figcaption>
<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${said}" preserveAspectRatio="xMinYMin meet">
${grid}<line x1="${left}" x2="${width - right}" y1="${y(0)}" y2="${y(0)}" class="chart-axis"/>
${bars}${axis}${lines}</svg>
<div class="visually-hidden-table"><table class="chart-data">
<caption>${title}${(options.lines ?? []).map((l) => `; ${l.label}`).join('')}</caption>
<thead><tr><th scope="col">${options.item}</th><th scope="col">${options.unit}</th></tr></thead>
<tbody>${columns.map((c) => html`<tr><th scope="row">${c.label}</th><td>${c.value}</td></tr>`)}</tbody>
</table></div>
</figure>`;
}
