// Real databases through a folder target: 10,000 changes and no plaintext (test/integration/sync/real-stores.ts).
import { describe, it } from 'vitest';
import { tempDir } from '../../support/db';
import { realStoresScenario } from './real-stores';

describe('sync through a folder between real databases', () => {
  it('sets up, joins, refuses a wrong passphrase, carries 10,000 changes, and leaves no plaintext (the kills of a real `tidy sync`: webdav.test.ts)', async () => {
    const folder = tempDir();
    await realStoresScenario({ kind: 'folder', url: folder }, folder, { cli: false });
  }, 120_000);
});
