/** A few line icons (24×24, drawn with currentColor), decorative: the text next to them names the control. */
// The views' icons are in their entries of store/views.ts.
const PATHS = {
  trace: 'M15 4v16M4 4h16v16H4z',
  help: 'M12 21a9 9 0 110-18 9 9 0 010 18zM9.5 9.5a2.5 2.5 0 115 0c0 1.5-2.5 2-2.5 3.5M12 17h.01',
  plus: 'M12 5v14M5 12h14',
  stop: 'M7 7h10v10H7z',
} as const;

type IconName = keyof typeof PATHS;

/** A named icon, or one given by its path (a view's, from store/views.ts). */
export function Icon({ name, path, size = 16 }: { name?: IconName; path?: string; size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d={path ?? (name ? PATHS[name] : '')} />
    </svg>
  );
}
