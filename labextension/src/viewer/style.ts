/**
 * The viewer's stylesheet: JupyterLab CSS variables with fallbacks (light, and dark via
 * prefers-color-scheme) for the standalone page. Injected once per document/shadow root.
 */
const STYLE_ID = 'ascend-lab-viewer-style';

export const CSS = `
.al-root { --al-fb-bg: #ffffff; --al-fb-bg2: #f3f3f3; --al-fb-fg: #1f1f1f; --al-fb-fg2: #616161; --al-fb-border: #c8c8c8; --al-fb-accent: #1976d2; }
@media (prefers-color-scheme: dark) {
  .al-root { --al-fb-bg: #1e1e1e; --al-fb-bg2: #2a2a2a; --al-fb-fg: #e6e6e6; --al-fb-fg2: #a8a8a8; --al-fb-border: #4a4a4a; --al-fb-accent: #64b5f6; }
}
.al-root {
  --al-bg: var(--jp-layout-color1, var(--al-fb-bg));
  --al-bg2: var(--jp-layout-color2, var(--al-fb-bg2));
  --al-fg: var(--jp-ui-font-color1, var(--al-fb-fg));
  --al-fg2: var(--jp-ui-font-color2, var(--al-fb-fg2));
  --al-border: var(--jp-border-color1, var(--al-fb-border));
  --al-accent: var(--jp-brand-color1, var(--al-fb-accent));
  --al-added: #2e9d4a; --al-removed: #d32f2f; --al-modified: #e08a00; --al-linked: #d81b60; --al-match: #f9a825;
  font-family: var(--jp-ui-font-family, system-ui, -apple-system, 'Segoe UI', sans-serif);
  font-size: 12px; color: var(--al-fg); background: var(--al-bg);
  border: 1px solid var(--al-border); border-radius: 4px; display: flex; flex-direction: column;
  min-height: 420px; box-sizing: border-box;
}
.al-root *, .al-root *::before { box-sizing: border-box; }
.al-error { color: #c62828; padding: 8px; white-space: pre-wrap; }
.al-notes { padding: 4px 8px; border-bottom: 1px solid var(--al-border); background: var(--al-bg2); color: var(--al-fg2); }
.al-tabs { display: flex; gap: 2px; border-bottom: 1px solid var(--al-border); padding: 4px 4px 0; align-items: flex-end; }
.al-tabs .al-title { margin-left: auto; padding: 4px 8px; color: var(--al-fg2); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 50%; }
.al-tab { background: var(--al-bg2); color: var(--al-fg); border: 1px solid var(--al-border); border-bottom: none; padding: 4px 10px; cursor: pointer; border-radius: 4px 4px 0 0; font: inherit; }
.al-tab[aria-selected="true"] { background: var(--al-bg); font-weight: 600; border-top: 2px solid var(--al-accent); }
.al-view { flex: 1; display: flex; flex-direction: column; min-height: 0; }
.al-view[hidden] { display: none; }
.al-toolbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 4px 6px; border-bottom: 1px solid var(--al-border); background: var(--al-bg2); }
.al-toolbar input[type="search"] { width: 180px; }
.al-toolbar button, .al-toolbar select, .al-toolbar input { font: inherit; color: var(--al-fg); background: var(--al-bg); border: 1px solid var(--al-border); border-radius: 3px; padding: 2px 6px; }
.al-toolbar label { display: inline-flex; gap: 3px; align-items: center; }
.al-status { color: var(--al-fg2); margin-left: auto; }
.al-body { flex: 1; display: flex; min-height: 480px; }
.al-panes { flex: 1; display: flex; min-width: 0; }
.al-pane { flex: 1; position: relative; min-width: 0; display: flex; flex-direction: column; border-right: 1px solid var(--al-border); }
.al-pane:last-child { border-right: none; }
.al-pane-title { padding: 3px 6px; font-weight: 600; border-bottom: 1px solid var(--al-border); }
.al-cmp { display: flex; flex-direction: column; flex: 1; min-height: 0; }
.al-cmp-summary { display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 4px 8px; border-bottom: 1px solid var(--al-border); background: var(--al-bg2); }
.al-cmp-item[data-field="casts_added"], .al-cmp-item[data-field="added"] { color: var(--al-added); }
.al-cmp-item[data-field="removed"] { color: var(--al-removed); }
.al-cmp-item[data-field="changed"] { color: var(--al-modified); }
.al-pane-title .al-sub { font-weight: normal; color: var(--al-fg2); margin-left: 6px; }
.al-canvas { flex: 1; position: relative; min-height: 460px; overflow: hidden; }
.al-canvas > svg { position: absolute; inset: 0; width: 100%; height: 100%; cursor: grab; outline: none; }
.al-canvas > svg:focus-visible { outline: 2px solid var(--al-accent); outline-offset: -2px; }
.al-busy { position: absolute; top: 6px; right: 8px; color: var(--al-fg2); }
.al-panel { width: 280px; overflow: auto; border-left: 1px solid var(--al-border); padding: 6px 8px; background: var(--al-bg); max-height: 720px; }
.al-panel h3 { margin: 2px 0 6px; font-size: 13px; word-break: break-all; }
.al-panel table { border-collapse: collapse; width: 100%; }
.al-panel td { border-top: 1px solid var(--al-border); padding: 2px 3px; vertical-align: top; word-break: break-all; }
.al-panel td:first-child { color: var(--al-fg2); white-space: nowrap; word-break: normal; }
.al-panel .al-muted, .al-muted { color: var(--al-fg2); }
.al-results { max-height: 120px; overflow: auto; margin: 0; padding: 0 6px; list-style: none; }
.al-results li { cursor: pointer; padding: 1px 0; }
.al-timeline { display: flex; flex-direction: column; gap: 4px; padding: 6px; border-bottom: 1px solid var(--al-border); }
.al-timeline input[type="range"] { width: 100%; }
.al-passlist { max-height: 150px; overflow: auto; margin: 0; padding: 0; list-style: none; columns: 3 220px; }
.al-passlist li { cursor: pointer; padding: 1px 4px; break-inside: avoid; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.al-passlist li.al-stage { font-weight: 600; color: var(--al-fg2); cursor: default; }
.al-passlist li[aria-current="true"] { background: var(--al-accent); color: var(--al-bg); }
.al-passlist li.al-unchanged { color: var(--al-fg2); }
.al-explain { color: var(--al-fg2); }
.al-mem { padding: 6px; overflow: auto; }
.al-mem svg { display: block; }
.al-mem-tip { min-height: 18px; color: var(--al-fg2); }
svg.al-svg text { fill: var(--al-fg); font-size: 11px; font-family: var(--jp-code-font-family, ui-monospace, monospace); pointer-events: none; }
svg.al-svg .al-edge { fill: none; stroke: var(--al-fg2); stroke-opacity: 0.55; stroke-width: 1.2; }
svg.al-svg .al-node rect { stroke-width: 1.3; }
svg.al-svg text.al-edge-label { fill: var(--al-fg2); font-size: 9px; }
svg.al-svg .al-node, svg.al-svg .al-group { cursor: pointer; outline: none; }
svg.al-svg .al-node:focus-visible rect, svg.al-svg .al-group:focus-visible rect { stroke: var(--al-accent); stroke-width: 3; }
svg.al-svg .al-group rect { fill: var(--al-bg2); stroke: var(--al-fg2); stroke-dasharray: 4 2; }
svg.al-svg .al-frame > rect { fill: var(--al-fg2); fill-opacity: 0.05; stroke: var(--al-border); }
svg.al-svg .al-frame > .al-frame-head { cursor: pointer; }
svg.al-svg .al-frame text { fill: var(--al-fg2); }
svg.al-svg .al-stack-card { fill: var(--al-bg2); stroke: var(--al-fg2); stroke-opacity: 0.6; }
svg.al-svg .al-stack-front { fill: var(--al-bg); stroke: var(--al-fg2); stroke-width: 1.3; }
svg.al-svg .al-stack-head, svg.al-svg .al-stack-btn { cursor: pointer; outline: none; }
svg.al-svg text.al-stack-title { font-size: 15px; }
svg.al-svg .al-stack-btn rect { fill: var(--al-bg2); stroke: var(--al-border); }
svg.al-svg .al-stack-btn:focus-visible rect, svg.al-svg .al-stack-head:focus-visible rect { stroke: var(--al-accent); stroke-width: 2.5; }
svg.al-svg .al-stack-head.al-match > rect { stroke: var(--al-match); stroke-width: 3; }
svg.al-svg .al-stack-head.al-linked > rect { stroke: var(--al-linked); stroke-width: 3; }
svg.al-svg .al-node.al-added rect { stroke: var(--al-added); stroke-width: 3; }
svg.al-svg .al-node.al-modified rect { stroke: var(--al-modified); stroke-width: 3; }
svg.al-svg .al-node.al-match rect, svg.al-svg .al-group.al-match rect { stroke: var(--al-match); stroke-width: 3; }
svg.al-svg .al-linked rect { stroke: var(--al-linked); stroke-width: 3.5; }
svg.al-svg .al-selected rect { stroke: var(--al-accent); stroke-width: 4; }
svg.al-svg .al-bk rect { stroke-dasharray: 2 2; }
svg.al-svg .al-memrect { stroke: var(--al-bg); stroke-width: 0.5; cursor: pointer; }
svg.al-svg .al-memrect.al-selected { stroke: var(--al-accent); stroke-width: 2.5; }
svg.al-svg .al-curve { fill: var(--al-accent); fill-opacity: 0.25; stroke: var(--al-accent); }
svg.al-svg .al-axis { stroke: var(--al-fg2); }
svg.al-svg .al-peak { stroke: #c62828; stroke-dasharray: 4 3; }
svg.al-svg .al-lb { stroke: #2e7d32; stroke-dasharray: 2 3; }
.al-legend { display: inline-flex; gap: 8px; color: var(--al-fg2); }
.al-swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 3px; vertical-align: middle; }
`;

export function injectStyle(host: HTMLElement): void {
  const root = host.getRootNode();
  const target: Node = root instanceof ShadowRoot ? root : document.head;
  const exists =
    root instanceof ShadowRoot
      ? root.getElementById(STYLE_ID)
      : document.getElementById(STYLE_ID);
  if (exists) {
    return;
  }
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  target.appendChild(style);
}

/** CSS custom properties of the viewer, resolved to concrete colours (for exported SVG). */
export const EXPORT_VARS = [
  '--al-bg',
  '--al-bg2',
  '--al-fg',
  '--al-fg2',
  '--al-border',
  '--al-accent',
  '--al-added',
  '--al-modified',
  '--al-linked',
  '--al-match'
];
