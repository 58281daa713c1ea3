// jsdom has no DragEvent; @lumino/dragdrop (pulled in by @lumino/widgets) subclasses it at
// import time. Import this module first in tests that import widgets.
const g = globalThis as unknown as Record<string, unknown>;
if (typeof g.DragEvent === 'undefined' && typeof g.MouseEvent !== 'undefined') {
  g.DragEvent = class DragEvent extends (g.MouseEvent as typeof MouseEvent) {};
}
export {};
