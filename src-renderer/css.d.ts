/** Stylesheets imported by components (vite bundles them); they export nothing. */
declare module '*.css';
