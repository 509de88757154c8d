import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// electron-vite assumes src/main, src/preload and src/renderer; Tidy's layers live in src-* folders
// (docs/ARCHITECTURE.md, "Layers").
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // The calculator's child process runs its own file, next to index.js (see src-main/sandbox/calculator.ts).
      rolldownOptions: { input: { index: resolve('src-main/app/main.ts'), 'calc-worker': resolve('src-main/sandbox/worker.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload can require only 'electron': bundle everything else (the contract, zod) into it.
      externalizeDeps: false,
      // A sandboxed preload must be CommonJS.
      rolldownOptions: {
        input: { index: resolve('src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src-renderer'),
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      minify: true,
      // One chunk on purpose: the windows load it from disk (app://, or loopback for `tidy serve`), where
      // splitting only adds requests. It is about 800 kB minified (React, zod, markdown-it, ical.js, chrono's
      // English parser and Tidy); the warning is for growth past that.
      chunkSizeWarningLimit: 1000,
      rolldownOptions: { input: { index: resolve('src-renderer/index.html') } },
    },
  },
});
