// The console's page layout: the frame every signed-in page is drawn in (the sections' navigation,
// the instance switcher, the user's menu), the bare pages around it (errors, a shared report), all
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

/** The sections, daily work first and setup apart, in the order the sidebar shows them; `names`: left out for a reviewer under blind review. */
const SECTIONS: { id: Frame['section']; label: string; group: 'daily' | 'setup'; manage?: boolean; owner?: boolean; names?: boolean }[] = [
  { id: 'overview', label: 'Overview', group: 'daily' },
  { id: 'candidates', label: 'Candidates', group: 'daily', names: true },
  { id: 'reviews', label: 'Review queue', group: 'daily' },
  { id: 'invitations', label: 'Invitations', group: 'daily', names: true },
  { id: 'assessments', label: 'Assessments', group: 'daily' },
  { id: 'keys', label: 'API keys', group: 'setup', manage: true },
  { id: 'webhooks', label: 'Webhooks', group: 'setup', manage: true },
  { id: 'integrations', label: 'Integrations', group: 'setup', manage: true },
  { id: 'settings', label: 'Settings', group: 'setup', manage: true },
  { id: 'users', label: 'Users', group: 'setup', owner: true },
  { id: 'audit', label: 'Audit log', group: 'setup', owner: true },
  { id: 'impact', label: 'Adverse impact', group: 'setup', manage: true },
];

/** Sections that are not of one instance: the instance switcher sends them to the overview. */
const ACROSS_INSTANCES: Frame['section'][] = ['audit', 'users', 'account'];

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
<link rel="stylesheet" href="/console/assets/open-props.min.css">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>`;
}

/** An instance as the console names it: the company candidates see, and the instance's name when that differs. */
function instanceLabel(frame: Frame, name: string): string {
  // The company's name, as the recruiter knows it; the slug only where two share a name.
  const company = frame.companies?.[name];
  if (!company) return name;
  const shared = Object.entries(frame.companies ?? {}).some(([other, c]) => other !== name && c === company);
  return shared ? `${company} (${name})` : company;
}

/**
 * The frame: one sidebar (a bar with a menu button at 390 px, a <details> that needs no script)
 * with the brand, the instance switcher (links, no form), daily work, setup apart, and the user's
 * menu (account, sign out); the page beside it.
 */
export function consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml {
  const allowed = SECTIONS.filter((s) => (!s.manage || frame.canManage) && (!s.owner || frame.user.role === 'owner') && (!s.names || !frame.blind));
  const group = (id: 'daily' | 'setup', label: string) => {
    const items = allowed.filter((s) => s.group === id);
    return (
      items.length > 0 &&
      html`<p class="nav-group" id="nav-${id}">${label}</p>
<ul class="nav" aria-labelledby="nav-${id}">${items.map(
        (s) => html`<li><a href="${sectionPath(s.id, frame.instance)}"${s.id === frame.section && html` aria-current="page"`}>${s.label}</a></li>`,
      )}</ul>`
    );
  };
  const target = ACROSS_INSTANCES.includes(frame.section) ? 'overview' : frame.section;
  const switcher =
    frame.instances.length > 1 &&
    html`<details class="switcher">
<summary><span>Instance:</span> ${frame.instance ? instanceLabel(frame, frame.instance) : 'choose'}</summary>
<ul aria-label="Instances">${frame.instances.map(
      (name) => html`<li><a href="${sectionPath(target, name)}"${name === frame.instance && html` aria-current="true"`}>${instanceLabel(frame, name)}</a></li>`,
    )}</ul>
</details>`;
  return html`<!doctype html>
<html lang="en">
${head(title, frame.csrf)}
<body>
<a class="skip" href="#main">Skip to content</a>
<div class="shell">
<header class="sidebar">
<p class="brand"><a href="/console/">Assessment Connect</a>${frame.instance && frame.instances.length <= 1 && html` <span class="instance-name"><span class="separator" aria-hidden="true">· </span>${instanceLabel(frame, frame.instance)}</span>`}</p>
<details class="menu">
<summary>Menu</summary>
<div class="menu-body">
${switcher}
<nav aria-label="Console">
${group('daily', 'Daily work')}
${group('setup', 'Setup')}
</nav>
<details class="user-menu">
<summary><span>Signed in as</span> ${frame.user.email}</summary>
<div class="user-menu-body">
<span class="who">${frame.user.email} (${frame.user.role})</span>
<a href="/console/account"${frame.section === 'account' && html` aria-current="page"`}>Your account</a>
<form method="post" action="/console/sign-out" class="sign-out">
<input type="hidden" name="_csrf" value="${frame.csrf}">
<button type="submit">Sign out</button>
</form>
</div>
</details>
</div>
</details>
</header>
<main id="main" tabindex="-1">
${body}
</main>
</div>
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
<body class="bare">
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
<body class="bare"><main id="main" class="sign-in"><h1>${title}</h1><p>${message}</p></main></body>
</html>`;
}

export function bareMessagePage(title: string, message: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body class="bare"><main id="main" class="sign-in"><h1>${title}</h1><p class="error">${message}</p><p><a href="/console/">Back to the console</a></p></main></body>
</html>`;
}
