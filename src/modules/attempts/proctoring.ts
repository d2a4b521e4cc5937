// The proctoring rules: which recorded signals make an attempt's redFlag true. Pure: no I/O.
// The same rules are written out in the README; change both together.

export type SignalKind =
  | 'focus-lost' // the page lost focus (another window or tab)
  | 'page-hidden' // the page was hidden (tab switched, window minimised)
  | 'paste' // something was pasted into an answer or the typing area
  | 'copy' // something was copied from the page
  | 'fullscreen-exit' // the candidate left full screen
  | 'address-changed' // the server saw another IP address on the same attempt
  | 'agent-changed' // the server saw another browser (user agent) on the same attempt
  | 'typing-too-fast' // the typing test ran faster than a person types
  | 'typing-no-rhythm'; // the typing test came with no or uniform keystroke intervals

export const BROWSER_SIGNALS: SignalKind[] = ['focus-lost', 'page-hidden', 'paste', 'copy', 'fullscreen-exit'];

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
} as const;

/** The reasons an attempt is red-flagged, empty when it is not. */
export function redFlagReasons(signals: Signal[]): string[] {
  const count = (...kinds: SignalKind[]) => signals.filter((s) => kinds.includes(s.kind)).length;
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
  return reasons;
}

/**
 * Signals about the typing itself: too fast for a person, or keystroke intervals that are
 * missing or machine-regular (a script or a paste replayed as keystrokes).
 */
export function typingSignals(netWpm: number, typedLength: number, intervalsMs: number[]): { kind: SignalKind; detail: string }[] {
  const signals: { kind: SignalKind; detail: string }[] = [];
  if (netWpm > RULES.maxPlausibleWpm) signals.push({ kind: 'typing-too-fast', detail: `${netWpm.toFixed(1)} net wpm` });
  if (typedLength >= 20) {
    const usable = intervalsMs.filter((ms) => Number.isFinite(ms) && ms >= 0);
    if (usable.length < typedLength / 2) {
      signals.push({ kind: 'typing-no-rhythm', detail: `${usable.length} keystroke intervals for ${typedLength} characters` });
    } else {
      const mean = usable.reduce((a, b) => a + b, 0) / usable.length;
      const sd = Math.sqrt(usable.reduce((a, b) => a + (b - mean) ** 2, 0) / usable.length);
      if (mean < 15 || sd < 3) signals.push({ kind: 'typing-no-rhythm', detail: `mean interval ${mean.toFixed(1)} ms, deviation ${sd.toFixed(1)} ms` });
    }
  }
  return signals;
}
