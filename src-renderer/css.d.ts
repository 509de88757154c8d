/** Stylesheets imported by components (`import '../styles/<name>.css'`): bundled by Vite into the page's CSS. */
declare module '*.css';
