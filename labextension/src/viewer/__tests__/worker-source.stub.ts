// Stand-in for the generated worker bundle in unit tests (jsdom has no Worker).
export const WORKER_SOURCE = '';
