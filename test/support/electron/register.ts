/**
 * `node --import register.mjs out/main/index.js`: the built main bundle's `import … from "electron"`
 * gets the stand-in (electron.mjs), which sits next to this file once built (test/support/electron-app.ts).
 */
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url), { data: { standIn: new URL('./electron.mjs', import.meta.url).href } });
