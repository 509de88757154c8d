// `npm run bench [name]`: every speed and memory target of the project, printed as figures and ratios.
import { benchAgent } from './agent';
import { benchCalculator } from './calculator';
import { benchCalendar } from './calendar';
import { benchData } from './data';
import { benchHostile } from './hostile';
import { benchLlm } from './llm';
import { benchMemory } from './memory';
import { benchStart } from './start';
import { benchStore } from './store';
import { benchSync } from './sync';
import { benchTasks } from './tasks';
import { benchUi } from './ui';

const only = process.argv[2];
const benches: [string, () => Promise<void>][] = [
  ['store', benchStore],
  ['agent', benchAgent],
  ['calculator', benchCalculator],
  ['llm', benchLlm],
  ['ui', benchUi],
  ['hostile', benchHostile],
  ['data', benchData],
  ['calendar', benchCalendar],
  ['tasks', benchTasks],
  ['sync', benchSync],
  ['memory', benchMemory],
  ['start', benchStart],
];

if (only && !benches.some(([name]) => name === only)) {
  console.error(`bench: no benchmark '${only}'; pick one of: ${benches.map(([n]) => n).join(', ')}`);
  process.exit(2);
}
for (const [name, run] of benches) {
  if (only && only !== name) continue;
  await run();
  console.log('');
}
