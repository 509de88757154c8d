// `tidy config profile …` and `tidy config test`: provider profiles (endpoint + model per provider, the
// key in the keychain under the profile id) and a connection check that says what is wrong.
import type { Command } from 'commander';
import { PRESET_IDS, PRESETS, type ProviderProfile } from '../../../src-shared/providers';
import { activeProfile, addProfile, listProfiles, removeProfile, updateProfile, useProfile } from '../../core/providers/profiles';
import { testConnection } from '../../core/providers/test-connection';
import { clearApiKey } from '../../core/secrets/api-key';
import { KeychainUnavailableError } from '../../core/secrets/store';
import { CliFailure, must, usage, type Cli } from '../context';
import { cliConnection, cliSecrets, notice } from '../keys';

const describe = (p: ProviderProfile): string => `${PRESETS[p.preset].label}, ${p.baseUrl}, model ${p.model}${p.apiVersion ? `, api-version ${p.apiVersion}` : ''}`;

/** Domain-style failures of the profile functions are usage errors here: a wrong id, preset or URL. */
function mustUse<T>(r: { ok: true; value: T } | { ok: false; error: string; hint: string }): T {
  if (!r.ok) throw usage(r.error, r.hint);
  return r.value;
}

/**
 * --base-url and --model of `profile add/edit`. They share their names with the global per-run overrides,
 * and commander hands such flags to the program wherever they stand, so they are read from there too
 * (the TIDY_BASE_URL/TIDY_MODEL variables are not: a profile is only changed by what was typed).
 */
function endpointFlags(cli: Cli, o: { baseUrl?: string; model?: string }): { baseUrl?: string | undefined; model?: string | undefined } {
  return { baseUrl: o.baseUrl ?? cli.globals.baseUrl, model: o.model ?? cli.globals.model };
}

export function registerProfileCommands(config: Command, cli: Cli): void {
  const profile = config.command('profile').description('provider profiles: OpenAI, Azure OpenAI, Ollama, LM Studio, llama.cpp or a custom endpoint');

  profile
    .command('list')
    .description('the profiles; * marks the active one')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => {
      const db = cli.db();
      const active = activeProfile(db).id;
      const profiles = listProfiles(db);
      if (o.json) return cli.json(profiles.map((p) => ({ ...p, active: p.id === active })));
      const w = Math.max(8, ...profiles.map((p) => p.id.length)) + 2;
      const u = Math.max(10, ...profiles.map((p) => p.baseUrl.length)) + 2;
      cli.out(`  ${'ID'.padEnd(w)}${'PRESET'.padEnd(10)}${'BASE URL'.padEnd(u)}MODEL`);
      for (const p of profiles) cli.out(`${p.id === active ? '*' : ' '} ${p.id.padEnd(w)}${p.preset.padEnd(10)}${p.baseUrl.padEnd(u)}${p.model}`);
    });

  profile
    .command('presets')
    .description('the presets a profile can start from')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => {
      if (o.json) return cli.json(PRESET_IDS.map((id) => PRESETS[id]));
      for (const id of PRESET_IDS) cli.out(`${id.padEnd(10)}${PRESETS[id].label.padEnd(36)}${PRESETS[id].help}`);
    });

  profile
    .command('use')
    .argument('<id>')
    .description('make a profile the active one (baseUrl and model follow it)')
    .action((id: string) => {
      const p = mustUse(useProfile(cli.db(), id));
      cli.out(`active profile: ${p.id} (${describe(p)})`);
    });

  profile
    .command('add')
    .argument('<id>', 'a short name, e.g. work or ollama-big (also its keychain entry)')
    .requiredOption('--preset <preset>', `one of: ${PRESET_IDS.join(', ')}`)
    .option('--base-url <url>', 'the endpoint (default: the preset\'s)')
    .option('--model <name>', 'the model (Azure: the deployment name)')
    .option('--api-version <version>', 'Azure deployment URLs only, e.g. 2024-10-21')
    .option('--use', 'make it the active profile')
    .description('add a profile from a preset')
    .action((id: string, o: { preset: string; baseUrl?: string; model?: string; apiVersion?: string; use?: boolean }) => {
      const db = cli.db();
      const { baseUrl, model } = endpointFlags(cli, o);
      const p = mustUse(addProfile(db, { id, preset: o.preset, baseUrl, model, apiVersion: o.apiVersion }));
      if (o.use) must(useProfile(db, p.id));
      cli.out(`added profile ${p.id} (${describe(p)})${o.use ? ' and made it active' : `; switch to it with: tidy config profile use ${p.id}`}`);
      if (PRESETS[p.preset].keyRequired) cli.out(`store its key with: tidy key set --profile ${p.id}`);
    });

  profile
    .command('edit')
    .argument('<id>')
    .option('--base-url <url>', 'a new endpoint (a key saved for another address is then not sent: save it again)')
    .option('--model <name>', 'a new model')
    .option('--api-version <version>', 'Azure deployment URLs only; "none" removes it')
    .description("change a profile's endpoint, model or api-version")
    .action((id: string, o: { baseUrl?: string; model?: string; apiVersion?: string }) => {
      const { baseUrl, model } = endpointFlags(cli, o);
      if (baseUrl === undefined && model === undefined && o.apiVersion === undefined) {
        throw usage('nothing to change', 'pass --base-url, --model or --api-version');
      }
      const apiVersion = o.apiVersion === 'none' ? null : o.apiVersion;
      const p = mustUse(updateProfile(cli.db(), id, { baseUrl, model, apiVersion }));
      cli.out(`profile ${p.id}: ${describe(p)}`);
    });

  profile
    .command('remove')
    .argument('<id>')
    .description('remove a profile and its key in the OS keychain')
    .action(async (id: string) => {
      const p = mustUse(removeProfile(cli.db(), id));
      let keyNote = '';
      try {
        if (await clearApiKey(p.id, cliSecrets())) keyNote = ' and its key';
      } catch (e) {
        if (!(e instanceof KeychainUnavailableError)) throw e;
        // The profile is gone either way; the entry stays bound to its old address and is harmless.
        notice(`could not remove its key: ${e.message}`);
      }
      cli.out(`removed profile ${p.id}${keyNote}`);
    });

  config
    .command('test')
    .description("check the endpoint: list its models with the key and say what is wrong (uses --base-url/--model when given)")
    .option('--profile <id>', 'provider profile (default: the active one)')
    .option('--timeout <seconds>', 'how long to wait for an answer', '10')
    .option('--json', 'print the report as JSON')
    .action(async (o: { profile?: string; timeout: string; json?: boolean }) => {
      const seconds = Number(o.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 300) throw usage(`--timeout ${JSON.stringify(o.timeout)} is not allowed`, 'give seconds from 0.1 to 300');
      const conn = cliConnection(cli, o.profile);
      // As "Test and use" in the window: a local server's context window is checked against Tidy's prompt, and
      // for the profile in use the context budget is fitted to it (against every tool: loaded only here).
      const { fitContextToModel } = await import('../../core/agent/context-fit');
      const r = fitContextToModel(cli.db(), await testConnection(conn, { timeoutMs: Math.round(seconds * 1000) }), conn.profile.preset, {
        fit: conn.profile.id === activeProfile(cli.db()).id,
      });
      if (o.json) cli.json(r);
      if (!r.ok) throw new CliFailure(r.message, r.hint || 'see tidy config test --help');
      if (o.json) return;
      const key = r.keySource === 'keychain' ? 'key from the OS keychain' : r.keySource === 'env' ? 'key from OPENAI_API_KEY' : 'no key';
      cli.out(`profile ${conn.profile.id}: GET ${r.url} (${key})`);
      cli.out(`ok: ${r.message} in ${r.elapsedMs} ms`);
      if (r.context && !r.context.tooSmall) cli.out(r.context.note);
      if (r.warning) cli.out(`warning: ${r.warning}`);
    });
}
