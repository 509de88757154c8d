// The quick-capture window's size (src-main/app/capture-size.ts): the box alone, an answer under it, the
// zoom, and a screen too small for either.
import { describe, expect, it } from 'vitest';
import { CAPTURE_BASE, captureWindowSize } from '../../../src-main/app/capture-size';

const screen = { width: 1920, height: 1080 };

describe('captureWindowSize', () => {
  it('is the base size with nothing under the box, and grows with the answer', () => {
    expect(captureWindowSize({ contentHeight: 100, zoom: 1, workArea: screen })).toEqual(CAPTURE_BASE);
    expect(captureWindowSize({ contentHeight: 412.3, zoom: 1, workArea: screen })).toEqual({ width: 560, height: 413 });
  });

  it('scales with the zoom, so nothing clips at 200 %', () => {
    expect(captureWindowSize({ contentHeight: 0, zoom: 2, workArea: screen })).toEqual({ width: 1120, height: 264 });
    expect(captureWindowSize({ contentHeight: 600, zoom: 2, workArea: screen })).toEqual({ width: 1120, height: 600 });
  });

  it('never outgrows the screen (90 % wide, 80 % high), and ignores nonsense input', () => {
    expect(captureWindowSize({ contentHeight: 50_000, zoom: 3, workArea: { width: 1280, height: 720 } })).toEqual({ width: 1152, height: 576 });
    for (const bad of [NaN, -5, Infinity]) {
      expect(captureWindowSize({ contentHeight: bad, zoom: bad, workArea: screen })).toEqual(CAPTURE_BASE);
    }
  });
});
