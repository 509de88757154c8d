// `npm run bench`: every speed and memory target of the project, printed as figures and ratios.
import { benchStore } from './store';

const only = process.argv[2];
const benches: [string, () => Promise<void>][] = [['store', benchStore]];

for (const [name, run] of benches) {
  if (only && only !== name) continue;
  await run();
  console.log('');
}
