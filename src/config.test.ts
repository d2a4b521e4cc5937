// Settings that the other suites do not cover: WORKERS, SHUTDOWN_DELAY_MS, REQUEST_TIMEOUT_MS,
// SSO_ALLOW_INSECURE_HTTP and the ATSs' API addresses.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

const PG = { DATABASE_URL: 'postgres://db.example/assessments' };

describe('configuration', () => {
  it('runs one process unless told otherwise, one per core with auto', () => {
    assert.equal(loadConfig({}).workers, 1);
    assert.equal(loadConfig({ ...PG, WORKERS: '3' }).workers, 3);
    assert.equal(loadConfig({ ...PG, WORKERS: 'auto' }).workers, availableParallelism());
  });

  it('refuses bad worker counts, and several workers on the embedded store', () => {
    for (const value of ['0', '65', 'two', '1.5']) {
      assert.throws(
        () => loadConfig({ ...PG, WORKERS: value }),
        (error: Error) => error instanceof ConfigError && /WORKERS/.test(error.message),
        value,
      );
    }
    assert.throws(() => loadConfig({ WORKERS: '2' }), /WORKERS above 1 needs DATABASE_URL/);
    if (availableParallelism() > 1) assert.throws(() => loadConfig({ WORKERS: 'auto' }), /needs DATABASE_URL/);
  });

  it('keeps single sign-on on https unless SSO_ALLOW_INSECURE_HTTP says otherwise', () => {
    assert.equal(loadConfig({}).ssoAllowInsecureHttp, false);
    assert.equal(loadConfig({ SSO_ALLOW_INSECURE_HTTP: 'true' }).ssoAllowInsecureHttp, true);
    assert.equal(loadConfig({ SSO_ALLOW_INSECURE_HTTP: 'false' }).ssoAllowInsecureHttp, false);
    assert.throws(() => loadConfig({ SSO_ALLOW_INSECURE_HTTP: 'maybe' }), /SSO_ALLOW_INSECURE_HTTP must be true or false/);
  });

  it('points the ATS adapters at the public API of each ATS unless HIBOB_API_URL, LEVER_API_URL or SMARTRECRUITERS_API_URL say otherwise', () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.hibobApiUrl, defaults.leverApiUrl, defaults.smartrecruitersApiUrl],
      ['https://api.hibob.com/v1', 'https://api.lever.co/v1', 'https://api.smartrecruiters.com'],
    );
    const local = loadConfig({ HIBOB_API_URL: 'http://127.0.0.1:9/hibob', LEVER_API_URL: 'http://127.0.0.1:9/lever', SMARTRECRUITERS_API_URL: 'http://127.0.0.1:9/sr' });
    assert.deepEqual([local.hibobApiUrl, local.leverApiUrl, local.smartrecruitersApiUrl], ['http://127.0.0.1:9/hibob', 'http://127.0.0.1:9/lever', 'http://127.0.0.1:9/sr']);
    for (const name of ['HIBOB_API_URL', 'LEVER_API_URL', 'SMARTRECRUITERS_API_URL']) {
      assert.throws(() => loadConfig({ [name]: 'ftp://x' }), new RegExp(`${name} must start with https:// or http://`));
      assert.throws(() => loadConfig({ [name]: 'not a url' }), new RegExp(`${name} is not a URL`));
    }
  });

  it('bounds the sweep interval', () => {
    assert.equal(loadConfig({}).sweepEveryMs, 5000);
    assert.equal(loadConfig({ SWEEP_EVERY_MS: '200' }).sweepEveryMs, 200);
    assert.throws(() => loadConfig({ SWEEP_EVERY_MS: '0' }), /SWEEP_EVERY_MS/);
  });

  it('waits 5 s before closing the listener on a signal unless told otherwise', () => {
    assert.equal(loadConfig({}).shutdownDelayMs, 5000);
    assert.equal(loadConfig({ SHUTDOWN_DELAY_MS: '0' }).shutdownDelayMs, 0);
    assert.equal(loadConfig({ SHUTDOWN_DELAY_MS: '250' }).shutdownDelayMs, 250);
    for (const value of ['-1', '120001', 'soon', '1.5']) assert.throws(() => loadConfig({ SHUTDOWN_DELAY_MS: value }), /SHUTDOWN_DELAY_MS/, value);
  });

  it('bounds the request timeout', () => {
    assert.equal(loadConfig({}).requestTimeoutMs, 30_000);
    assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).requestTimeoutMs, 5000);
    assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '10' }), /REQUEST_TIMEOUT_MS/);
  });
});
