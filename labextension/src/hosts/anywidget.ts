/**
 * anywidget front end: `export default { render({ model, el }) }`. Reads the `payload`,
 * `view` and `lang` traitlets, re-renders when they change, and asks the kernel for pass
 * snapshots that are not in the payload (`request-pass` -> `pass` custom messages).
 * Labels are in `lang` (the kernel's ascend_lab.i18n language), from the bundled catalogue:
 * an anywidget module cannot reach JupyterLab's translator.
 */
import {
  CATALOGUES,
  renderPayload,
  transForLanguage,
  ViewerHandle,
  viewerTrans,
  viewName
} from '../viewer';

interface AnyModel {
  get(name: string): unknown;
  on(event: string, cb: (...args: unknown[]) => void): void;
  off(event: string, cb: (...args: unknown[]) => void): void;
  send(content: unknown, callbacks?: unknown, buffers?: unknown[]): void;
}

interface PassReply {
  type?: string;
  index?: number;
  graph?: unknown;
  error?: string;
}

const REQUEST_TIMEOUT_MS = 120000;

function render({ model, el }: { model: AnyModel; el: HTMLElement }): () => void {
  let handle: ViewerHandle | null = null;
  const pending = new Map<
    number,
    Array<{ resolve: (g: unknown) => void; reject: (e: Error) => void }>
  >();

  const onRequestPass = (index: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const waiting = pending.get(index) ?? [];
      waiting.push({ resolve, reject });
      pending.set(index, waiting);
      if (waiting.length === 1) {
        model.send({ type: 'request-pass', index });
      }
      setTimeout(
        () =>
          reject(
            new Error(
              viewerTrans().__('the kernel did not answer (is it still running?)')
            )
          ),
        REQUEST_TIMEOUT_MS
      );
    });

  const onMessage = (...args: unknown[]): void => {
    const msg = args[0] as PassReply;
    if (!msg || msg.type !== 'pass' || typeof msg.index !== 'number') {
      return;
    }
    const waiting = pending.get(msg.index) ?? [];
    pending.delete(msg.index);
    for (const w of waiting) {
      if (msg.error) {
        w.reject(new Error(msg.error));
      } else {
        w.resolve(msg.graph);
      }
    }
  };

  const draw = (): void => {
    const options = {
      view: viewName(model.get('view')),
      onRequestPass,
      trans: transForLanguage(String(model.get('lang') ?? ''), CATALOGUES)
    };
    handle?.dispose();
    handle = renderPayload(el, model.get('payload'), options);
  };

  model.on('msg:custom', onMessage);
  model.on('change:payload', draw);
  model.on('change:view', draw);
  model.on('change:lang', draw);
  draw();
  return () => {
    model.off('msg:custom', onMessage);
    model.off('change:payload', draw);
    model.off('change:view', draw);
    model.off('change:lang', draw);
    handle?.dispose();
    handle = null;
  };
}

export { renderPayload };
export default { render };
