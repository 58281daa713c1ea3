import { describe, expect, it } from 'vitest';
import { MIN_LEGIBLE_ZOOM } from '../layers';
import {
  Viewport,
  centreOn,
  firstViewTransform,
  fitTransform,
  rectInView,
  rectOnScreen,
  zoomAt
} from '../viewport';

describe('viewport arithmetic (pure)', () => {
  it('fits a drawing in view, centred, with 20 px margins', () => {
    const t = fitTransform({ width: 380, height: 100 }, 800, 480)!;
    expect(t.k).toBe(1.5);
    expect(t.tx).toBe((800 - 380 * 1.5) / 2);
    expect(t.ty).toBe((480 - 100 * 1.5) / 2);
    // never above the top: at least 10 px down
    expect(
      fitTransform({ width: 100, height: 10000 }, 800, 480)!.ty
    ).toBeGreaterThanOrEqual(10);
    expect(fitTransform({ width: 0, height: 100 }, 800, 480)).toBeNull();
  });

  it('opens a long graph at a legible zoom, from the top, not fitted', () => {
    const b = { width: 400, height: 40000 };
    expect(fitTransform(b, 800, 480)!.k).toBeLessThan(MIN_LEGIBLE_ZOOM);
    const t = firstViewTransform(b, 800, 480)!;
    expect(t.k).toBeGreaterThanOrEqual(MIN_LEGIBLE_ZOOM);
    expect(t.ty).toBe(10);
    expect(t.tx).toBe((800 - 400 * t.k) / 2);
    // a small graph: the first view is the fit
    const small = { width: 300, height: 200 };
    expect(firstViewTransform(small, 800, 480)).toEqual(fitTransform(small, 800, 480));
  });

  it('zooms about a point, which stays where it is on screen, within 0.02 to 4', () => {
    const t = { tx: 20, ty: 30, k: 1 };
    const z = zoomAt(t, 2, 400, 240);
    expect(z.k).toBe(2);
    // the drawing point under (400, 240) before is still under it
    expect((400 - z.tx) / z.k).toBeCloseTo((400 - t.tx) / t.k);
    expect((240 - z.ty) / z.k).toBeCloseTo((240 - t.ty) / t.k);
    expect(zoomAt(t, 100, 0, 0).k).toBe(4);
    expect(zoomAt(t, 0.0001, 0, 0).k).toBe(0.02);
  });

  it('centres a box, zooming in when far out, and knows what is in view', () => {
    const box = { x: 1000, y: 2000, w: 20, h: 10 };
    const c = centreOn({ tx: 0, ty: 0, k: 0.1 }, box, 800, 480);
    expect(c.k).toBe(0.8);
    expect(c.tx + (box.x + box.w / 2) * c.k).toBe(400);
    expect(c.ty + (box.y + box.h / 2) * c.k).toBe(240);
    expect(centreOn({ tx: 0, ty: 0, k: 2 }, box, 800, 480).k).toBe(2);
    expect(rectInView(c, box, 800, 480, 0)).toBe(true);
    expect(rectOnScreen(c, box, 800, 480)).toBe(true);
    const far = { x: 5000, y: 2000, w: 20, h: 10 };
    expect(rectInView(c, far, 800, 480, 0)).toBe(false);
    expect(rectInView(c, far, 800, 480, 5000)).toBe(true);
    // partly off screen: in view, not on screen
    const edge = { x: 1000 + 400 / 0.8 - 5, y: 2000, w: 20, h: 10 };
    expect(rectInView(c, edge, 800, 480, 0)).toBe(true);
    expect(rectOnScreen(c, edge, 800, 480)).toBe(false);
  });
});

describe('Viewport on an SVG', () => {
  it('writes its transform on the group, tells the pane, and pans by drag', () => {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    svg.appendChild(g);
    document.body.appendChild(svg);
    let moves = 0;
    const v = new Viewport(svg, g, () => (moves += 1));
    v.bindPointer();
    // jsdom has no layout: the fallback size
    expect(v.size()).toEqual([800, 480]);
    v.fit({ width: 380, height: 100 });
    expect(g.getAttribute('transform')).toBe('translate(115.0,165.0) scale(1.5000)');
    expect(moves).toBe(1);
    v.fit({ width: 0, height: 0 });
    expect(moves).toBe(1);
    const at = (type: string, x: number, y: number): void => {
      const ev = new MouseEvent(type, {
        clientX: x,
        clientY: y,
        button: 0,
        bubbles: true
      });
      svg.dispatchEvent(ev);
    };
    at('pointerdown', 10, 10);
    at('pointermove', 12, 11); // under 4 px: not a drag yet
    expect(v.tx).toBe(115);
    at('pointermove', 60, 40);
    at('pointerup', 60, 40);
    expect([v.tx, v.ty]).toEqual([165, 195]);
    const [cx, cy] = v.centre();
    expect(cx).toBeCloseTo((400 - 165) / 1.5);
    expect(cy).toBeCloseTo((240 - 195) / 1.5);
    v.zoomBy(2);
    expect(v.k).toBe(3);
    svg.remove();
  });
});
