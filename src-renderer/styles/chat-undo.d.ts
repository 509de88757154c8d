/** Stylesheets are imported for their effect; Vite bundles them (src-renderer/styles/*.css). */
declare module '*.css';
