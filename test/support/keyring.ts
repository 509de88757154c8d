/**
 * Tests that need a real Secret Service run inside `bash scripts/with-keyring.sh …` (npm test does this),
 * which sets TIDY_KEYRING_SESSION=1 once a throwaway keyring is up and unlocked. Outside such a session
 * they show as skipped with the command to run — and on CI (CI or TIDY_REQUIRE_KEYRING set) they fail,
 * so a pipeline that lost its keyring cannot pass them silently.
 */
import { describe, it } from 'vitest';

export const inKeyringSession = process.env['TIDY_KEYRING_SESSION'] === '1' && process.platform === 'linux';
const required = Boolean(process.env['CI']) || process.env['TIDY_REQUIRE_KEYRING'] === '1';

export const KEYRING_HOWTO = 'needs a Secret Service: bash scripts/with-keyring.sh npx vitest run test/integration/secrets test/integration/cli';

export function describeWithKeyring(name: string, body: () => void): void {
  if (inKeyringSession) describe(name, body);
  else if (required) {
    describe(name, () => {
      it('runs inside a keyring session', () => {
        throw new Error(`not inside a keyring session (TIDY_KEYRING_SESSION unset); ${KEYRING_HOWTO}`);
      });
    });
  } else describe.skip(`${name} — skipped: ${KEYRING_HOWTO}`, body);
}

/** The environment of a child process that cannot reach any Secret Service. */
export const NO_KEYCHAIN_ENV = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/tidy-test-bus', DISPLAY: '' };
