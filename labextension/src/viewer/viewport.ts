/**
 * The viewport of one graph drawing: the pan and zoom (tx, ty, k) of the SVG group the boxes
 * are drawn in, the first view (layers.ts: never below a legible zoom), zoom about a point,
 * centring on a box, what is in view, and pointer drag / wheel input. The arithmetic is pure
 * functions (unit-tested in __tests__/viewport.test.ts); Viewport applies it to the DOM.
 */
import { MIN_LEGIBLE_ZOOM, firstViewZoom } from './layers';

/** A box in drawing coordinates. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Screen = drawing × k + (tx, ty). */
export interface Transform {
  tx: number;
  ty: number;
  k: number;
}

/** The drawing's size (the root group's layout). */
export interface Bounds {
  width: number;
  height: number;
}

/** The whole drawing in view, centred (20 px margins, zoom 0.05 to 1.5); null when empty. */
export function fitTransform(b: Bounds, vw: number, vh: number): Transform | null {
  if (b.width <= 0 || b.height <= 0) {
    return null;
  }
  const k = Math.max(0.05, Math.min(1.5, (vw - 40) / b.width, (vh - 40) / b.height));
  return { k, tx: (vw - b.width * k) / 2, ty: Math.max(10, (vh - b.height * k) / 2) };
}

/**
 * First view: fit the whole graph if its labels stay legible (layers.ts), else the
 * legible zoom (or the width's fit if that is larger, up to 1), starting at the top,
 * like reading a long network from its input. Never smaller than legible.
 */
export function firstViewTransform(
  b: Bounds,
  vw: number,
  vh: number
): Transform | null {
  const fit = fitTransform(b, vw, vh);
  if (fit === null || fit.k >= MIN_LEGIBLE_ZOOM) {
    return fit;
  }
  const k = firstViewZoom(Math.min(1, (vw - 40) / b.width));
  return { k, tx: b.width * k <= vw - 40 ? (vw - b.width * k) / 2 : 20, ty: 10 };
}

/** Zoom by `factor` (0.02 to 4 in all) keeping the screen point (px, py) where it is. */
export function zoomAt(
  t: Transform,
  factor: number,
  px: number,
  py: number
): Transform {
  const k = Math.max(0.02, Math.min(4, t.k * factor));
  return { k, tx: px - ((px - t.tx) * k) / t.k, ty: py - ((py - t.ty) * k) / t.k };
}

/** A box in the middle of the view (zooming in to 0.8 when below 0.5). */
export function centreOn(t: Transform, box: Rect, vw: number, vh: number): Transform {
  const k = t.k < 0.5 ? 0.8 : t.k;
  return {
    k,
    tx: vw / 2 - (box.x + box.w / 2) * k,
    ty: vh / 2 - (box.y + box.h / 2) * k
  };
}

/** Does a box meet the view grown by `margin` (drawing units) on every side? */
export function rectInView(
  t: Transform,
  box: Rect,
  vw: number,
  vh: number,
  margin: number
): boolean {
  const x0 = -t.tx / t.k - margin;
  const y0 = -t.ty / t.k - margin;
  const x1 = x0 + vw / t.k + 2 * margin;
  const y1 = y0 + vh / t.k + 2 * margin;
  return box.x + box.w >= x0 && box.x <= x1 && box.y + box.h >= y0 && box.y <= y1;
}

/** Is a box wholly on screen? */
export function rectOnScreen(t: Transform, box: Rect, vw: number, vh: number): boolean {
  const sx = box.x * t.k + t.tx;
  const sy = box.y * t.k + t.ty;
  return !(sx < 0 || sy < 0 || sx + box.w * t.k > vw || sy + box.h * t.k > vh);
}

export class Viewport {
  tx = 20;
  ty = 20;
  k = 1;
  private disposed = false;

  /**
   * @param svg the drawing's SVG element (its size is the view's)
   * @param group the group the transform is set on
   * @param onMove called after every change of the transform (a culling pane redraws)
   */
  constructor(
    private readonly svg: SVGSVGElement,
    private readonly group: SVGGElement,
    private readonly onMove: () => void
  ) {}

  get transform(): Transform {
    return { tx: this.tx, ty: this.ty, k: this.k };
  }

  /** The view's size in pixels (800 x 480 before it has one). */
  size(): [number, number] {
    return [this.svg.clientWidth || 800, this.svg.clientHeight || 480];
  }

  /** The drawing point at the middle of the view. */
  centre(): [number, number] {
    const [vw, vh] = this.size();
    return [(vw / 2 - this.tx) / this.k, (vh / 2 - this.ty) / this.k];
  }

  set(t: Transform | null): void {
    if (t === null) {
      return;
    }
    this.tx = t.tx;
    this.ty = t.ty;
    this.k = t.k;
    this.apply();
  }

  private apply(): void {
    this.group.setAttribute(
      'transform',
      `translate(${this.tx.toFixed(1)},${this.ty.toFixed(1)}) scale(${this.k.toFixed(4)})`
    );
    this.onMove();
  }

  fit(b: Bounds): void {
    this.set(fitTransform(b, ...this.size()));
  }

  fitInitial(b: Bounds): void {
    this.set(firstViewTransform(b, ...this.size()));
  }

  zoomBy(factor: number, cx?: number, cy?: number): void {
    const [vw, vh] = this.size();
    this.set(zoomAt(this.transform, factor, cx ?? vw / 2, cy ?? vh / 2));
  }

  centreOn(box: Rect): void {
    this.set(centreOn(this.transform, box, ...this.size()));
  }

  inView(box: Rect, margin: number): boolean {
    return rectInView(this.transform, box, ...this.size(), margin);
  }

  onScreen(box: Rect): boolean {
    return rectOnScreen(this.transform, box, ...this.size());
  }

  /**
   * A pane laid out before it has a size (a notebook output not yet attached: the first
   * layout can finish in a microtask) was fitted to the fallback 800 x 480, so its graph
   * sits off-centre, partly under the node panel. Fit it again once it has a size, unless
   * the learner has moved the view by then; `refit` does it.
   */
  refitWhenSized(refit: () => void): void {
    if (
      (this.svg.clientWidth > 0 && this.svg.clientHeight > 0) ||
      typeof ResizeObserver === 'undefined'
    ) {
      return;
    }
    const placed = [this.k, this.tx, this.ty].join();
    const observer = new ResizeObserver(() => {
      if (this.disposed || this.svg.clientWidth === 0 || this.svg.clientHeight === 0) {
        return;
      }
      observer.disconnect();
      if ([this.k, this.tx, this.ty].join() === placed) {
        refit();
      }
    });
    observer.observe(this.svg);
  }

  /** Drag with the primary button pans (the click that ends a drag is swallowed); the wheel zooms. */
  bindPointer(): void {
    const svg = this.svg;
    let drag: { x: number; y: number; tx: number; ty: number; moved: boolean } | null =
      null;
    svg.addEventListener('pointerdown', (ev: PointerEvent) => {
      if (ev.button !== 0) {
        return;
      }
      drag = { x: ev.clientX, y: ev.clientY, tx: this.tx, ty: this.ty, moved: false };
    });
    svg.addEventListener('pointermove', (ev: PointerEvent) => {
      if (!drag) {
        return;
      }
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 4) {
        drag.moved = true;
        try {
          svg.setPointerCapture(ev.pointerId);
        } catch {
          // not capturable (synthetic events)
        }
      }
      if (drag.moved) {
        this.set({ tx: drag.tx + dx, ty: drag.ty + dy, k: this.k });
      }
    });
    const endDrag = (ev: PointerEvent): void => {
      if (drag?.moved) {
        ev.preventDefault();
        const stop = (e: Event): void => {
          e.stopPropagation();
          svg.removeEventListener('click', stop, true);
        };
        svg.addEventListener('click', stop, true);
        setTimeout(() => svg.removeEventListener('click', stop, true), 0);
      }
      drag = null;
    };
    svg.addEventListener('pointerup', endDrag);
    svg.addEventListener('pointercancel', () => {
      drag = null;
    });
    svg.addEventListener(
      'wheel',
      (ev: WheelEvent) => {
        ev.preventDefault();
        const rect = svg.getBoundingClientRect();
        this.zoomBy(
          Math.exp(-ev.deltaY * 0.0015),
          ev.clientX - rect.left,
          ev.clientY - rect.top
        );
      },
      { passive: false }
    );
  }

  dispose(): void {
    this.disposed = true;
  }
}
