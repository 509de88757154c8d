/** The model settings: limits and sampling, each a slider with a number field. */
import { Slider } from './fields';

export function ModelSection() {
  return (
    <section aria-labelledby="set-model">
      <h2 id="set-model">Model settings</h2>
      <Slider k="maxTokens" label="Max response tokens" help="The longest reply the model may write in one call." />
      <Slider k="historyLength" label="History length" help="Earlier messages of the conversation sent along with a request." />
      <Slider k="temperature" label="Temperature" help="Lower is steadier, higher more varied." />
      <Slider k="maxActions" label="Max actions" help="Tool calls a request may make before Tidy stops it." />
      <Slider k="timeLimitSec" label="Time limit" help="Seconds a request may take before Tidy stops it." />
    </section>
  );
}
