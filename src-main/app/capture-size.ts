/**
 * The quick-capture window's size: one line and its hint at first, growing with the answer shown under
 * it (src-renderer/features/capture/CaptureAnswer.tsx) up to most of the screen, and scaled with the page zoom so the box never
 * clips at 200 %. Plain arithmetic, kept apart from Electron so it is tested in Node.
 */

/** The window at 100 % zoom, before there is an answer: the box and its hint. */
export const CAPTURE_BASE = { width: 560, height: 132 } as const;

interface CaptureSizeInput {
  /** The height the page needs without scrolling, in window pixels (webContents' preferred size). */
  contentHeight: number;
  /** webContents.getZoomFactor(): 1 at 100 %. */
  zoom: number;
  /** The work area of the display the window is on. */
  workArea: { width: number; height: number };
}

export function captureWindowSize({ contentHeight, zoom, workArea }: CaptureSizeInput): { width: number; height: number } {
  const z = Number.isFinite(zoom) && zoom > 0 ? Math.min(zoom, 5) : 1;
  const maxWidth = Math.max(200, Math.floor(workArea.width * 0.9));
  const maxHeight = Math.max(100, Math.floor(workArea.height * 0.8));
  const width = Math.min(Math.round(CAPTURE_BASE.width * z), maxWidth);
  const least = Math.round(CAPTURE_BASE.height * z);
  const wanted = Number.isFinite(contentHeight) && contentHeight > 0 ? Math.ceil(contentHeight) : least;
  return { width, height: Math.min(Math.max(least, wanted), maxHeight) };
}
