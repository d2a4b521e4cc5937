// A line diff (Myers' O(ND) algorithm) between two versions of an assessment's YAML: the lines
// both keep, and those one removes and the other adds, with their line numbers. A shortest edit
// script: the kept lines are a longest common subsequence of the two.

export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
  /** The line's number in the old text (same, removed). */
  oldLine?: number;
  /** The line's number in the new text (same, added). */
  newLine?: number;
}

/** Past this many edits the middle is shown as all removed, then all added (time and memory stay bounded). */
export const MAX_EDITS = 2000;

export const splitLines = (text: string): string[] => (text === '' ? [] : text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n'));

/** The diff of two texts, line by line. */
export function diffText(before: string, after: string, maxEdits = MAX_EDITS): DiffLine[] {
  return diffLines(splitLines(before), splitLines(after), maxEdits);
}

export function diffLines(a: readonly string[], b: readonly string[], maxEdits = MAX_EDITS): DiffLine[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ kind: 'same', text: a[i]!, oldLine: i + 1, newLine: i + 1 });
  for (const op of middle(a.slice(start, endA), b.slice(start, endB), maxEdits)) {
    out.push({
      kind: op.kind,
      text: op.text,
      ...(op.x !== undefined ? { oldLine: start + op.x + 1 } : {}),
      ...(op.y !== undefined ? { newLine: start + op.y + 1 } : {}),
    });
  }
  for (let i = 0; i < a.length - endA; i++) out.push({ kind: 'same', text: a[endA + i]!, oldLine: endA + i + 1, newLine: endB + i + 1 });
  return out;
}

interface Op {
  kind: DiffLine['kind'];
  text: string;
  x?: number;
  y?: number;
}

function middle(a: readonly string[], b: readonly string[], maxEdits: number): Op[] {
  const n = a.length;
  const m = b.length;
  const replaced = (): Op[] => [...a.map((text, x) => ({ kind: 'removed' as const, text, x })), ...b.map((text, y) => ({ kind: 'added' as const, text, y }))];
  if (n === 0 || m === 0) return replaced();
  const limit = Math.min(n + m, maxEdits);
  // v[k] (k = x - y, stored at k + limit): the furthest x reached on diagonal k with d edits.
  const v = new Int32Array(2 * limit + 3);
  const offset = limit + 1;
  // trace[d]: v's diagonals -d..d before step d, for walking back.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return walkBack(a, b, trace, d);
    }
  }
  return replaced();
}

function walkBack(a: readonly string[], b: readonly string[], trace: Int32Array[], edits: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = edits; d >= 0; d--) {
    const before = trace[d]!;
    // before holds diagonals -d..d (index k + d); at step d the previous step had reached d - 1 edits.
    const at = (k: number) => before[k + d]!;
    const k = x - y;
    let prevK: number;
    if (d === 0) prevK = 0;
    else prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    // The snake: lines both keep, after the edit.
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: 'same', text: a[x]!, x, y });
    }
    if (d === 0) break;
    if (x === prevX) {
      y--;
      ops.push({ kind: 'added', text: b[y]!, y });
    } else {
      x--;
      ops.push({ kind: 'removed', text: a[x]!, x });
    }
  }
  return ops.reverse();
}
