/** The ascend-lab graph / memory viewer: one renderer for every host. */
export { renderPayload, ViewerApp } from './app';
export type { RenderOptions, ViewerHandle, ViewName } from './app';
export { checkPayload, PayloadError, SCHEMA_ID } from './types';
export type { Payload } from './types';
