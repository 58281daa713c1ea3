/**
 * The ascend-lab graph / memory viewer: one renderer for every host. This is the viewer's
 * one public surface: hosts (src/hosts/) import `../viewer` only (eslint.config.mjs
 * enforces it), as anywidget's hosts import `anywidget` only.
 */
export { renderPayload, ViewerApp } from './app';
export type { RenderOptions, ViewerHandle } from './app';
export { checkPayload, PayloadError, SCHEMA_ID } from './types';
export type { Payload } from './types';
export { VIEW_NAMES, viewName } from './views';
export type { TabName, ViewName } from './views';
// labels: the viewer's translator, and the bundled catalogues for hosts without JupyterLab's
export { transForLanguage, viewerTrans } from './i18n';
export { CATALOGUES } from './catalogues.generated';
// the standalone page's packed pass snapshots and weight statistics
export { packedPassLoader, readPacked } from './packed-passes';
export { pageWeightStatsLoader } from './weight-stats';
