import type { Command } from 'commander';
import { readSettings, writeSetting } from '../../core';
import { isSettingKey, SETTING_KEYS, SETTINGS } from '../../../src-shared/settings';
import { must, usage, type Cli } from '../context';

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
        return o.json ? cli.json(settings[key]) : cli.out(String(settings[key]));
      }
      if (o.json) return cli.json(settings);
      for (const k of SETTING_KEYS) cli.out(`${k.padEnd(14)} ${String(settings[k]).padEnd(28)} ${SETTINGS[k].help}`);
    });
  config
    .command('set')
    .argument('<key>')
    .argument('<value>')
    .description('change a setting (validated)')
    .action((key: string, value: string) => {
      if (!isSettingKey(key)) throw usage(`unknown setting '${key}'`, `use one of: ${SETTING_KEYS.join(', ')}`);
      const v = must(writeSetting(cli.db(), key, value));
      cli.out(`${key} = ${String(v)}`);
    });
}
