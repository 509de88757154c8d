// `tidy key set | status | clear`: a provider profile's API key in the OS keychain. The key is read from
// stdin only — an argument would stay in the shell history and show in the process list.
import type { Command } from 'commander';
import type { ProviderProfile } from '../../../src-shared/providers';
import { getProfile, listProfiles } from '../../core/providers/profiles';
import { clearApiKey, keyStatus, parseApiKey, setApiKey } from '../../core/secrets/api-key';
import { readSettings } from '../../core/settings';
import { CliFailure, usage, type Cli } from '../context';
import { asCliFailure, cliKeyDeps, cliSecrets } from '../keys';
import { readSecret, SecretInputError } from '../secret-input';

interface ProfileOption {
  profile?: string;
}

function pickProfile(cli: Cli, id: string | undefined): ProviderProfile {
  const db = cli.db();
  const wanted = id ?? readSettings(db).profile;
  const profile = getProfile(db, wanted);
  if (!profile) throw usage(`no provider profile '${wanted}'`, `use one of: ${listProfiles(db).map((p) => p.id).join(', ')}`);
  return profile;
}

export function registerKeyCommands(program: Command, cli: Cli): void {
  const key = program.command('key').description('the API key of a provider profile, kept in the OS keychain (never in the database)');
  const profileOption = ['--profile <id>', 'provider profile (default: the active one)'] as const;

  key
    .command('set')
    .description('store or replace the key: reads it from stdin (hidden at a terminal; or `printf %s "$KEY" | tidy key set`)')
    .option(...profileOption)
    .allowExcessArguments(true)
    .action(async (o: ProfileOption, cmd: Command) => {
      if (cmd.args.length > 0) {
        throw usage('the key is read from stdin, not from the command line', 'an argument stays in your shell history: run `tidy key set` and paste it at the prompt, or pipe it in');
      }
      const profile = pickProfile(cli, o.profile);
      const secrets = cliSecrets();
      // Before asking for the key: nobody should paste a secret only to hear it cannot be kept.
      const probe = await secrets.probe();
      if (!probe.available) throw new CliFailure(`no OS keychain available (${probe.error.reason}); the key was not saved`, probe.error.fix);
      let text: string;
      try {
        text = await readSecret(process.stdin, (t) => process.stderr.write(t), `API key for profile ${profile.id}`);
      } catch (e) {
        if (e instanceof SecretInputError) throw usage(`no key saved: ${e.message}`, 'run `tidy key set` again');
        throw e;
      }
      const parsed = parseApiKey(text);
      if (!parsed.ok) throw usage(parsed.error, parsed.hint);
      try {
        await setApiKey(profile, parsed.value, secrets);
      } catch (e) {
        throw asCliFailure(e);
      }
      cli.out(`saved the API key of profile ${profile.id} in ${secrets.label}; it is sent only to ${new URL(profile.baseUrl).origin}`);
    });

  key
    .command('status')
    .description('whether a key is set and which one a request would use (never prints the key)')
    .option(...profileOption)
    .option('--json', 'print JSON')
    .action(async (o: ProfileOption & { json?: boolean }) => {
      const profile = pickProfile(cli, o.profile);
      const s = await keyStatus({ profile, baseUrl: profile.baseUrl }, cliKeyDeps());
      if (o.json) cli.json(s);
      else {
        const stored = s.stored ? 'a key is stored in the OS keychain' : s.keychain.available ? 'no key in the OS keychain' : s.keychain.problem;
        const used =
          s.source === 'keychain'
            ? 'requests use it'
            : s.source === 'env'
              ? 'requests use OPENAI_API_KEY from the environment'
              : s.required
                ? 'requests need one'
                : 'requests go without a key (none needed)';
        cli.out(`profile ${profile.id}: ${stored}; ${used}`);
      }
      // A missing key the endpoint needs is a failure, so `tidy key status` works as a check in scripts.
      if (s.problem) throw new CliFailure(s.problem.error, s.problem.hint);
    });

  key
    .command('clear')
    .description('remove the key of a profile from the OS keychain')
    .option(...profileOption)
    .action(async (o: ProfileOption) => {
      const profile = pickProfile(cli, o.profile);
      let removed: boolean;
      try {
        removed = await clearApiKey(profile.id, cliSecrets());
      } catch (e) {
        throw asCliFailure(e);
      }
      cli.out(removed ? `removed the API key of profile ${profile.id} from the OS keychain` : `no key was stored for profile ${profile.id}`);
    });
}
