/**
 * The viewer's view names: one list for every host (anywidget `view` trait, standalone
 * page `data-view`, MIME renderer) and for the Python side (ascend_lab/render/standalone.py
 * VIEWS, which a test compares with this list). `all` shows every available tab.
 */
export const VIEW_NAMES = [
  'graph',
  'compare',
  'timeline',
  'memory',
  'profile'
] as const;

/** One tab of the viewer. */
export type TabName = (typeof VIEW_NAMES)[number];

/** What a host asks for: one tab, or `all`. */
export type ViewName = TabName | 'all';

/** `value` as a view name; anything unknown (or missing) is `all`. */
export function viewName(value: unknown): ViewName {
  return (VIEW_NAMES as readonly unknown[]).includes(value)
    ? (value as TabName)
    : 'all';
}
