/** The model settings: limits and sampling, each a slider with a number field. */
import { Slider } from './fields';

export function ModelSection() {
  return (
    <section aria-labelledby="set-model">
      <h2 id="set-model">Model settings</h2>
      <Slider k="maxTokens" label="Max response tokens" help="The longest reply the model may write in one call." />
      <Slider k="historyLength" label="History length" help="Messages of earlier requests sent along with a new one (a request's own steps are always sent)." />
      <Slider k="contextTokens" label="Context budget" help="Tokens a request may use before Tidy shortens its oldest tool results; at most the model's context window." />
      <Slider k="temperature" label="Temperature" help="Lower is steadier, higher more varied." />
      <Slider k="maxActions" label="Max actions" help="Tool calls a request may make before Tidy stops it." />
      <Slider k="timeLimitSec" label="Time limit" help="Seconds a request may take before Tidy stops it." />
      <Slider k="bulkApproval" label="Ask before bulk changes" help="A request that would change more existing items than this asks you once first (0: never ask)." />
    </section>
  );
}
