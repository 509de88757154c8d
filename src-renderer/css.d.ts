/** Stylesheets imported by components (src-renderer/styles/*.css): Vite bundles them; they export nothing. */
declare module '*.css';
