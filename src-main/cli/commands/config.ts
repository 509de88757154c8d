import type { Command } from 'commander';
import { readSettings, writeSetting } from '../../core/settings';
import { isSettingKey, SETTING_KEYS, SETTINGS } from '../../../src-shared/settings';
import { must, usage, type Cli } from '../context';
import { registerProfileCommands } from './profiles';

export function registerConfigCommands(program: Command, cli: Cli): void {
  const config = program.command('config').description(`settings: ${SETTING_KEYS.join(', ')}`);
  config
    .command('get')
    .argument('[key]')
    .option('--json', 'print JSON')
    .description('show one setting or all of them')
    .action((key: string | undefined, o: { json?: boolean }) => {
      const settings = readSettings(cli.db());
      if (key !== undefined) {
        if (!isSettingKey(key)) throw usage(`unknown setting '${key}'`, `use one of: ${SETTING_KEYS.join(', ')}`);
        const v = settings[key];
        return o.json ? cli.json(v) : cli.out(typeof v === 'object' ? JSON.stringify(v) : String(v));
      }
      if (o.json) return cli.json(settings);
      for (const k of SETTING_KEYS) {
        const v = settings[k];
        cli.out(`${k.padEnd(20)} ${(typeof v === 'object' ? JSON.stringify(v) : String(v)).padEnd(28)} ${SETTINGS[k].help}`);
      }
    });
  config
    .command('set')
    .argument('<key>')
    .argument('<value>')
    .description('change a setting (validated)')
    .action((key: string, value: string) => {
      if (!isSettingKey(key) && !key.startsWith('approvals.')) throw usage(`unknown setting '${key}'`, `use one of: ${SETTING_KEYS.join(', ')}`);
      const v = must(writeSetting(cli.db(), key, value));
      cli.out(`${key} = ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
    });
  registerProfileCommands(config, cli);
}
