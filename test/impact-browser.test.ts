// Voluntary self-identification and the adverse-impact page in Debian's Chromium (playwright-core):
// a candidate invited in German takes a one-question assessment, submits, reads that the form is
// optional and answers it by keyboard and mouse, changes nothing they did not choose; then a
// manager signs in to the console and opens the adverse-impact page, which counts the answer.
// axe checks both pages. Without Chromium this skips and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, QUICK_ASSESSMENT } from './harness.js';
import { passwordChosen } from './support/console.js';
import { SHOTS, accessible, haveBrowser, startDemo, type DemoBrowser } from './support/demo-browser.js';

const browserHere = haveBrowser('adverse impact browser tests');
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('voluntary self-identification and adverse impact in Chromium', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let password: string;

  before(async () => {
    demo = await startDemo({ mailDir: 'impact-mail' });
    await demo.publish(QUICK_ASSESSMENT);
    const user = await demo.app.inject({
      method: 'POST',
      url: '/admin/v1/users',
      headers: admin,
      payload: { email: 'mia.manager@example.com', role: 'manager', instances: ['demo'] },
    });
    assert.equal(user.statusCode, 201, user.body);
    password = user.json().password;
    await passwordChosen({ db: demo.db }, 'mia.manager@example.com');
  });

  after(async () => {
    await demo?.close();
  });

  it('a candidate submits and answers the optional form in German; a manager opens the adverse-impact page', async () => {
    const { link, candidateId } = await demo.invite('robin@example.com', ['quick'], { language: 'de' });
    const context = await demo.browser.newContext({ viewport: { width: 1024, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(link);
    await page.getByRole('heading', { name: 'Guten Tag, Robin' }).waitFor();
    await page.goto(`${demo.base}/portal/a/quick`);
    await page.getByRole('button', { name: 'Test beginnen' }).click();
    await page.getByRole('radio', { name: '4' }).check();
    await page.getByRole('button', { name: 'Speichern und überprüfen' }).click();
    await page.getByRole('button', { name: 'Test abgeben' }).click();

    // The completed page: the feedback, then the voluntary questions, said to be optional first.
    const section = page.locator('#self-id');
    await section.getByRole('heading', { name: 'Freiwillige Selbstauskunft (optional)' }).waitFor();
    assert.match(await section.innerText(), /Diese Angaben sind freiwillig und haben keinen Einfluss auf Ihr Ergebnis; die Prüfenden sehen sie nie\./);
    assert.equal(await section.getByRole('radio', { checked: true }).count(), 0, 'nothing preselected');
    assert.equal(await section.getByRole('radio', { name: 'Keine Angabe' }).count(), 3);
    await accessible(page, 'the completed page with the voluntary questions');
    await page.screenshot({ path: path.join(SHOTS, 'self-identification-de.png'), fullPage: true });
    // Sex by keyboard (arrows choose within a radio group), the age band by mouse; race/ethnicity left open.
    await section.getByRole('group', { name: 'Geschlecht' }).getByRole('radio', { name: 'Weiblich' }).focus();
    await page.keyboard.press('Space');
    await section.getByRole('group', { name: 'Alter' }).getByRole('radio', { name: 'Keine Angabe' }).check();
    await section.getByRole('button', { name: 'Angaben speichern' }).click();
    await page.getByText('Vielen Dank. Ihre Angaben wurden gespeichert; Sie können sie hier ändern.').waitFor();
    assert.ok(await page.locator('#self-id').getByRole('group', { name: 'Geschlecht' }).getByRole('radio', { name: 'Weiblich' }).isChecked());
    await accessible(page, 'the completed page after saving');
    const { rows } = await demo.db.query<{ answers: unknown }>(
      `SELECT s.answers FROM self_identifications s JOIN invitations i ON i.id = s.invitation_id WHERE i.candidate_id = $1`,
      [candidateId],
    );
    assert.deepEqual(
      rows.map((r) => r.answers),
      [{ sex: 'female', 'age-band': 'prefer-not-to-say' }],
    );
    assert.deepEqual(errors, []);
    await context.close();

    // The manager's page: the answer is counted; reading notes and the settings are there.
    const consoleContext = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const consolePage = await consoleContext.newPage();
    await consolePage.goto(`${demo.base}/console/`);
    await consolePage.getByLabel('E-mail').fill('mia.manager@example.com');
    await consolePage.getByLabel('Password').fill(password);
    await consolePage.getByRole('button', { name: 'Sign in' }).click();
    await consolePage.getByRole('heading', { name: 'Overview of demo' }).waitFor();
    await consolePage.getByRole('link', { name: 'Adverse impact' }).click();
    await consolePage.getByRole('heading', { name: 'Adverse impact', level: 1 }).waitFor();
    await consolePage.getByLabel('Assessment').selectOption({ label: 'Quick check' });
    await consolePage.getByRole('button', { name: 'Show' }).click();
    await consolePage.getByRole('heading', { name: 'Sex', level: 2 }).waitFor();
    const female = consolePage
      .locator('#impact-q-sex')
      .locator('xpath=..')
      .getByRole('row', { name: /^Female/ });
    assert.match(await female.innerText(), /^Female\s+1\s+1\s+100\.0 %\s+-\s+Too few to judge \(fewer than 5\)\s+-$/);
    await consolePage.getByRole('heading', { name: 'How to read this' }).waitFor();
    await accessible(consolePage, 'the adverse-impact page');
    await consolePage.screenshot({ path: path.join(SHOTS, 'adverse-impact.png'), fullPage: true });
    await consolePage.setViewportSize({ width: 390, height: 800 });
    await accessible(consolePage, 'the adverse-impact page at 390 px');
    const wide = await consolePage.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
        .map((el) => `${el.tagName}#${el.id}.${el.className} ${el.getBoundingClientRect().right}`)
        .slice(0, 15),
    );
    assert.deepEqual(wide, [], 'the page does not scroll sideways at 390 px');
    await consoleContext.close();
  });
});
