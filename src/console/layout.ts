// The console's page layout: the frame every signed-in page is drawn in (the sections' navigation,
// the instance picker, who is signed in), the bare pages around it (errors, a shared report), all
// server-rendered through the escaping template layer with the same strict CSP as the portal (no
// inline script or style), readable at 390 px and printable.
import { html, type SafeHtml } from '../html/html.js';
import type { User } from '../modules/users/repository.js';

export interface Frame {
  user: User;
  csrf: string;
  /** Instances the user may open, and the one in view. */
  instances: string[];
  instance?: string;
  /** Instance name to the company its candidates see (display name, sender name or the name itself). */
  companies?: Record<string, string>;
  section: 'overview' | 'candidates' | 'reviews' | 'assessments' | 'invitations' | 'keys' | 'webhooks' | 'integrations' | 'settings' | 'impact' | 'users' | 'audit' | 'account';
  canManage: boolean;
  /** The user sees the instance's candidates only in the review queue (a reviewer under blind review). */
  blind?: boolean;
}

const SECTIONS: { id: Frame['section']; label: string; manage?: boolean; owner?: boolean; names?: boolean }[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'candidates', label: 'Candidates', names: true },
  { id: 'reviews', label: 'Review queue' },
  { id: 'assessments', label: 'Assessments' },
  { id: 'invitations', label: 'Invitations', names: true },
  { id: 'keys', label: 'API keys', manage: true },
  { id: 'webhooks', label: 'Webhooks', manage: true },
  { id: 'integrations', label: 'Integrations', manage: true },
  { id: 'settings', label: 'Settings', manage: true },
  { id: 'impact', label: 'Adverse impact', manage: true },
  { id: 'users', label: 'Users', owner: true },
  { id: 'audit', label: 'Audit log', owner: true },
];

const sectionPath = (id: Frame['section'], instance?: string) => {
  const base = id === 'overview' ? '/console/' : `/console/${id}`;
  return instance && id !== 'audit' && id !== 'users' ? `${base}?instance=${encodeURIComponent(instance)}` : base;
};

export function head(title: string, csrf?: string): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${csrf && html`<meta name="csrf-token" content="${csrf}">`}
<title>${title} · Assessment Connect console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>`;
}

/** An instance as the console names it: the company candidates see, and the instance's name when that differs. */
function instanceLabel(frame: Frame, name: string): string {
  const company = frame.companies?.[name];
  return company && company !== name ? `${company} (${name})` : name;
}

export function consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml {
  const nav = SECTIONS.filter((s) => (!s.manage || frame.canManage) && (!s.owner || frame.user.role === 'owner') && (!s.names || !frame.blind)).map(
    (s) => html`<li><a href="${sectionPath(s.id, frame.instance)}"${s.id === frame.section && html` aria-current="page"`}>${s.label}</a></li>`,
  );
  const picker =
    frame.instances.length > 1 &&
    frame.section !== 'audit' &&
    frame.section !== 'users' &&
    frame.section !== 'account' &&
    html`<form method="get" action="${sectionPath(frame.section)}" class="instance-picker">
<label for="instance-select">Instance</label>
<select id="instance-select" name="instance">${frame.instances.map((name) => html`<option value="${name}"${name === frame.instance && html` selected`}>${instanceLabel(frame, name)}</option>`)}</select>
<button type="submit">Show</button>
</form>`;
  return html`<!doctype html>
<html lang="en">
${head(title, frame.csrf)}
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand"><a href="/console/">Assessment Connect</a>${frame.instance && html` <span class="instance-name">· ${instanceLabel(frame, frame.instance)}</span>`}</p>
<nav aria-label="Console"><ul class="nav">${nav}</ul></nav>
<form method="post" action="/console/sign-out" class="sign-out">
<input type="hidden" name="_csrf" value="${frame.csrf}">
<span class="who"><a href="/console/account">${frame.user.email}</a> (${frame.user.role})</span>
<button type="submit">Sign out</button>
</form>
</header>
<main id="main" tabindex="-1">
${picker}
${body}
</main>
</body>
</html>`;
}

export function messageBody(title: string, message: string): SafeHtml {
  return html`<h1>${title}</h1><p class="error">${message}</p>`;
}

/** A page opened by a signed report link: no console around it, nothing to change. */
/** `company`: whose report this is (brandOf). */
export function sharedReportPage(title: string, company: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body>
<header class="top"><p class="brand">Candidate report <span class="instance-name">· ${company}</span></p></header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>`;
}

/** A page of a report link that opens nothing (invalid, expired or revoked). */
export function sharedReportMessage(title: string, message: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body><main id="main" class="sign-in"><h1>${title}</h1><p>${message}</p></main></body>
</html>`;
}

export function bareMessagePage(title: string, message: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body><main id="main" class="sign-in"><h1>${title}</h1><p class="error">${message}</p><p><a href="/console/">Back to the console</a></p></main></body>
</html>`;
}
