// The proctoring rules: which recorded signals make an attempt's redFlag true. Pure: no I/O.
// The same rules are written out in docs/content.md ("Proctoring and the red flag") and the risk
// level in docs/integrity.md; change both together.

export type SignalKind =
  | 'focus-lost' // the page lost focus (another window or tab)
  | 'page-hidden' // the page was hidden (tab switched, window minimised)
  | 'paste' // something was pasted into an answer or the typing area
  | 'copy' // something was copied from the page
  | 'fullscreen-exit' // the candidate left full screen
  | 'address-changed' // the server saw another IP address on the same attempt
  | 'agent-changed' // the server saw another browser (user agent) on the same attempt
  | 'typing-too-fast' // the typing test ran faster than a person types
  | 'typing-no-rhythm' // the typing test came with no or uniform keystroke intervals
  | 'typing-clock-mismatch' // the keystroke intervals add up to more time than the server measured
  | 'untyped-answer' // a long answer (code or free text) grew with too few keystrokes and no paste to explain it
  | 'automation' // the browser said it is driven by automation (navigator.webdriver), or the server saw a headless browser
  | 'machine-pace'; // answers saved at near-constant intervals faster than a person reads

/** Every kind, for checking a kind named from outside. */
export const SIGNAL_KINDS: readonly SignalKind[] = [
  'focus-lost',
  'page-hidden',
  'paste',
  'copy',
  'fullscreen-exit',
  'address-changed',
  'agent-changed',
  'typing-too-fast',
  'typing-no-rhythm',
  'typing-clock-mismatch',
  'untyped-answer',
  'automation',
  'machine-pace',
];

export const BROWSER_SIGNALS: SignalKind[] = ['focus-lost', 'page-hidden', 'paste', 'copy', 'fullscreen-exit', 'untyped-answer', 'automation'];

export interface Signal {
  kind: SignalKind;
  at: Date;
  detail: string;
}

export const RULES = {
  /** Any paste: answers and typing must be the candidate's own. */
  pasteAny: 1,
  /** Leaving the page (hidden or unfocused) this many times. */
  awayTimes: 3,
  /** Copying from the page this many times. */
  copyTimes: 2,
  /** Leaving full screen this many times (only counted when the page was put in full screen). */
  fullscreenExits: 3,
  /** Typing faster than this many net words per minute is not plausible. */
  maxPlausibleWpm: 200,
  /**
   * The median keystroke interval below which the keystrokes themselves run faster than
   * maxPlausibleWpm (60 000 ms / (5 characters × 200 wpm) = 60 ms).
   */
  minMedianIntervalMs: 60,
  /** Keystroke intervals more regular than this coefficient of variation (sd / mean) are a machine's. */
  minIntervalVariation: 0.15,
  /**
   * How much longer than the server's own clock the keystroke intervals may add up to: the page
   * cannot have seen more typing time than passed between the server's start and submission.
   * Slack for rounding (0.5 ms per interval) and clock rates: this share, plus slackMs.
   */
  clockSlackShare: 0.05,
  clockSlackMs: 1000,
  /** An answer grown by at least this many characters not pasted... */
  untypedMinChars: 50,
  /** ...with more than this many characters per keystroke (auto-indent and closing brackets add a few) appeared without typing. */
  untypedCharsPerKey: 5,
  /** Answers saved at intervals whose median is under this (ms) came faster than a person reads a question... */
  minAnswerIntervalMs: 3000,
  /** ...and more regular than this coefficient of variation, over at least paceMinIntervals intervals, are a machine's. */
  paceMaxVariation: 0.3,
  paceMinIntervals: 4,
} as const;

/** User agents of headless browsers and automation drivers, as the server sees them. */
export const HEADLESS_AGENT = /HeadlessChrome|PhantomJS|SlimerJS|Electron\/|puppeteer|playwright|selenium|webdriver/i;

/** The reasons an attempt is red-flagged, empty when it is not. */
export function redFlagReasons(signals: Pick<Signal, 'kind'>[]): string[] {
  const counts: Partial<Record<SignalKind, number>> = {};
  for (const s of signals) counts[s.kind] = (counts[s.kind] ?? 0) + 1;
  return redFlagReasonsOf(counts);
}

/**
 * The counts the red flag is judged on: every signal counted, less those a reviewer dismissed
 * (one by one, or every signal of a kind).
 */
export function effectiveCounts(
  counts: Partial<Record<SignalKind, number>>,
  dismissed: Partial<Record<SignalKind, number>> = {},
  dismissedKinds: Partial<Record<SignalKind, unknown>> = {},
): Partial<Record<SignalKind, number>> {
  const out: Partial<Record<SignalKind, number>> = {};
  for (const [kind, count] of Object.entries(counts) as [SignalKind, number][]) {
    out[kind] = kind in dismissedKinds ? 0 : Math.max(0, count - (dismissed[kind] ?? 0));
  }
  return out;
}

/** The same rules over the count of each kind (what an attempt keeps of every signal, stored or not). */
export function redFlagReasonsOf(counts: Partial<Record<SignalKind, number>>): string[] {
  const count = (...kinds: SignalKind[]) => kinds.reduce((sum, kind) => sum + (counts[kind] ?? 0), 0);
  const reasons: string[] = [];
  const pastes = count('paste');
  if (pastes >= RULES.pasteAny) reasons.push(`pasted ${pastes} time${pastes === 1 ? '' : 's'}`);
  const away = count('page-hidden', 'focus-lost');
  if (away >= RULES.awayTimes) reasons.push(`left the page ${away} times`);
  const copies = count('copy');
  if (copies >= RULES.copyTimes) reasons.push(`copied from the page ${copies} times`);
  const exits = count('fullscreen-exit');
  if (exits >= RULES.fullscreenExits) reasons.push(`left full screen ${exits} times`);
  if (count('address-changed') > 0) reasons.push('the IP address changed during the attempt');
  if (count('agent-changed') > 0) reasons.push('the browser changed during the attempt');
  if (count('typing-too-fast') > 0) reasons.push(`typing faster than ${RULES.maxPlausibleWpm} wpm`);
  if (count('typing-no-rhythm') > 0) reasons.push('typing without a human keystroke rhythm');
  if (count('typing-clock-mismatch') > 0) reasons.push("keystroke times that do not fit the server's clock");
  if (count('automation') > 0) reasons.push('the browser was controlled by automation software');
  return reasons;
}

export type RiskLevel = 'low' | 'medium' | 'high';

/**
 * The risk level of an attempt from the counts of its signals not dismissed, with its reasons in
 * words (docs/integrity.md): high when a red-flag rule holds (redFlagReasonsOf, the red flag is
 * exactly "high"); medium when some signal is there below those rules, or an answer appeared
 * without typing, or answers came at a machine's pace; low otherwise.
 */
export function riskOf(counts: Partial<Record<SignalKind, number>>): { level: RiskLevel; reasons: string[] } {
  const high = redFlagReasonsOf(counts);
  if (high.length > 0) return { level: 'high', reasons: high };
  const count = (...kinds: SignalKind[]) => kinds.reduce((sum, kind) => sum + (counts[kind] ?? 0), 0);
  const times = (n: number) => (n === 1 ? 'once' : `${n} times`);
  const medium: string[] = [];
  const untyped = count('untyped-answer');
  if (untyped > 0) medium.push(`${untyped === 1 ? 'an answer' : `${untyped} answers`} appeared without typing`);
  if (count('machine-pace') > 0) medium.push('answers came at a near-constant pace faster than a person reads');
  const away = count('page-hidden', 'focus-lost');
  if (away > 0) medium.push(`left the page ${times(away)}`);
  const copies = count('copy');
  if (copies > 0) medium.push(`copied from the page ${times(copies)}`);
  const exits = count('fullscreen-exit');
  if (exits > 0) medium.push(`left full screen ${times(exits)}`);
  return { level: medium.length > 0 ? 'medium' : 'low', reasons: medium };
}

/** The red flag: the risk level is high. */
export const redFlagOf = (counts: Partial<Record<SignalKind, number>>): boolean => riskOf(counts).level === 'high';

/**
 * Machine pace, from the times answers were saved (the server's clock): at least
 * RULES.paceMinIntervals intervals between consecutive answers, their median under
 * RULES.minAnswerIntervalMs and their coefficient of variation under RULES.paceMaxVariation.
 */
export function paceSignal(savedAt: Date[]): { kind: SignalKind; detail: string } | undefined {
  const times = savedAt.map((d) => d.getTime()).sort((a, b) => a - b);
  const intervals = times.slice(1).map((t, i) => t - times[i]!);
  if (intervals.length < RULES.paceMinIntervals) return undefined;
  const sorted = [...intervals].sort((a, b) => a - b);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
  const sd = Math.sqrt(intervals.reduce((a, b) => a + (b - mean) ** 2, 0) / intervals.length);
  const variation = mean === 0 ? 0 : sd / mean;
  if (median >= RULES.minAnswerIntervalMs || variation >= RULES.paceMaxVariation) return undefined;
  return { kind: 'machine-pace', detail: `${intervals.length + 1} answers every ${(median / 1000).toFixed(1)} s (median), variation ${variation.toFixed(2)}` };
}

/**
 * Signals about the typing itself, from the net speed the server measured by its own clock
 * (`serverMs`, from the start of the test to its submission) and the keystroke intervals the page
 * reported, which are never trusted on their own but checked against that clock and against the
 * shape of human typing:
 * - too fast: the server-measured net speed, or the keystrokes' own pace (their median interval),
 *   beyond what a person types;
 * - no rhythm: intervals missing for more than half the characters, or machine-regular (a
 *   coefficient of variation under RULES.minIntervalVariation);
 * - clock mismatch: the intervals add up to more time than the server saw pass.
 */
export function typingSignals(netWpm: number, typedLength: number, intervalsMs: number[], serverMs: number): { kind: SignalKind; detail: string }[] {
  const signals: { kind: SignalKind; detail: string }[] = [];
  const usable = intervalsMs.filter((ms) => Number.isFinite(ms) && ms >= 0);
  const sorted = [...usable].sort((a, b) => a - b);
  const median = sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  const rhythmic = typedLength >= 20 && usable.length >= typedLength / 2;
  if (netWpm > RULES.maxPlausibleWpm) signals.push({ kind: 'typing-too-fast', detail: `${netWpm.toFixed(1)} net wpm` });
  else if (rhythmic && median < RULES.minMedianIntervalMs) {
    signals.push({ kind: 'typing-too-fast', detail: `keystrokes every ${median.toFixed(1)} ms (median), ${(60_000 / 5 / Math.max(median, 0.1)).toFixed(0)} wpm` });
  }
  if (typedLength >= 20) {
    if (!rhythmic) {
      signals.push({ kind: 'typing-no-rhythm', detail: `${usable.length} keystroke intervals for ${typedLength} characters` });
    } else {
      const mean = usable.reduce((a, b) => a + b, 0) / usable.length;
      const sd = Math.sqrt(usable.reduce((a, b) => a + (b - mean) ** 2, 0) / usable.length);
      if (mean === 0 || sd / mean < RULES.minIntervalVariation) {
        signals.push({ kind: 'typing-no-rhythm', detail: `mean interval ${mean.toFixed(1)} ms, deviation ${sd.toFixed(1)} ms` });
      }
    }
  }
  const sum = usable.reduce((a, b) => a + b, 0);
  const allowed = serverMs * (1 + RULES.clockSlackShare) + RULES.clockSlackMs + 0.5 * usable.length;
  if (sum > allowed) {
    signals.push({ kind: 'typing-clock-mismatch', detail: `keystroke intervals add up to ${Math.round(sum)} ms; the server measured ${Math.round(serverMs)} ms` });
  }
  return signals;
}
