/**
 * Module resolution hooks (https://nodejs.org/api/module.html#customization-hooks) for the app under test:
 * the bare specifier `electron` resolves to the stand-in; everything else resolves as usual.
 */
import type { ResolveHook } from 'node:module';

let standIn = '';

export function initialize(data: { standIn: string }): void {
  standIn = data.standIn;
}

export const resolve: ResolveHook = (specifier, context, next) => {
  if (specifier === 'electron') return { url: standIn, shortCircuit: true };
  return next(specifier, context);
};
