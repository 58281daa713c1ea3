// Each host (anywidget, standalone page, MIME renderer, document widget) with each view
// name of ../../viewer/views.ts: asked for one view, a host shows that view alone and
// draws it; asked for `all`, every tab. A host that kept a list of its own (the anywidget
// host once lacked 'profile' and showed every tab instead) fails here. Where the payload
// lacks what a view needs, the host shows that view with a message that says what is
// missing, never an empty panel or another view.
import '../../__tests__/dom-shim';

import { ServerConnection } from '@jupyterlab/services';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { Payload } from '../../viewer/types';
import { VIEW_NAMES, ViewName } from '../../viewer/views';
import { coursePayload } from '../../viewer/__tests__/payloads';
import { lenetProfile, withoutTrace } from '../../viewer/__tests__/profile-payloads';
import anywidget from '../anywidget';
import { GraphView } from '../document/graph-view';
import { GRAPH_MIME_TYPE, GraphRenderer } from '../mime';

/** A host showing a payload: the element it renders into, and how to close it. */
interface Shown {
  root: HTMLElement;
  close(): void;
}

type Host = (payload: unknown, view: ViewName) => Promise<Shown>;

const tick = (): Promise<void> => new Promise(r => setTimeout(r, 0));

/** The anywidget host with a model holding the `payload`, `view` and `lang` traits. */
const anywidgetHost: Host = async (payload, view) => {
  const el = document.createElement('div');
  document.body.appendChild(el);
  const values: Record<string, unknown> = { payload, view, lang: 'en' };
  const model = {
    get: (name: string) => values[name],
    on: () => undefined,
    off: () => undefined,
    send: () => undefined
  };
  const dispose = anywidget.render({ model, el });
  return {
    root: el,
    close: () => {
      dispose();
      el.remove();
    }
  };
};

/** The standalone page as ascend_lab/render/standalone.py writes it, its script run afresh. */
const standaloneHost: Host = async (payload, view) => {
  const data = document.createElement('script');
  data.type = 'application/json';
  data.id = 'ascend-lab-payload';
  data.textContent = JSON.stringify(payload);
  const root = document.createElement('div');
  root.id = 'ascend-lab-root';
  root.setAttribute('data-view', view);
  document.body.append(data, root);
  vi.resetModules();
  await import('../standalone');
  await tick(); // it renders in a task of its own
  const handle = (window as unknown as { ascendLab?: { dispose(): void } }).ascendLab;
  return {
    root,
    close: () => {
      handle?.dispose();
      data.remove();
      root.remove();
    }
  };
};

/** A MIME renderer as JupyterLab's rendermime registry makes it (no translator). */
function newRenderer(): GraphRenderer {
  const renderer = new GraphRenderer({
    mimeType: GRAPH_MIME_TYPE,
    sanitizer: undefined as never,
    resolver: null,
    linkHandler: null,
    latexTypesetter: null
  });
  document.body.appendChild(renderer.node);
  return renderer;
}

/** An output of `payload` with `metadata`, rendered by `renderer`. */
function renderOutput(
  renderer: GraphRenderer,
  payload: unknown,
  metadata: Record<string, unknown>
): Promise<void> {
  return renderer.renderModel({
    data: { [GRAPH_MIME_TYPE]: payload },
    metadata,
    trusted: true,
    setData: () => undefined
  } as never);
}

function closing(renderer: GraphRenderer): Shown {
  return {
    root: renderer.node,
    close: () => {
      renderer.node.remove();
      renderer.dispose();
    }
  };
}

/** The MIME renderer, asked for a view through the output's metadata. */
const mimeHost: Host = async (payload, view) => {
  const renderer = newRenderer();
  await renderOutput(renderer, payload, view === 'all' ? {} : { view });
  return closing(renderer);
};

/** The document widget of a file on the server (the server's answer is the payload). */
const documentHost: Host = async (payload, view) => {
  vi.spyOn(ServerConnection, 'makeRequest').mockResolvedValue(
    new Response(JSON.stringify(payload), {
      status: 200,
      headers: { 'Content-Type': 'application/json' }
    })
  );
  const widget = new GraphView('net.ir', undefined, 'graph', view);
  document.body.appendChild(widget.node);
  await widget.ready;
  return {
    root: widget.node,
    close: () => {
      widget.node.remove();
      widget.dispose();
    }
  };
};

const HOSTS: Array<[string, Host]> = [
  ['anywidget', anywidgetHost],
  ['standalone page', standaloneHost],
  ['MIME renderer', mimeHost],
  ['document widget', documentHost]
];

/** A payload with every view's section: fusion, passes, memory plan and a profile. */
function everyView(): Payload {
  const p = coursePayload() as Payload & { profile?: unknown };
  p.profile = withoutTrace(lenetProfile()).profile;
  return p;
}

/** The course's graph alone: no fusion, passes, memory plan or profile. */
function graphOnly(): Payload {
  const p = coursePayload();
  return {
    schema: p.schema,
    meta: p.meta,
    graphs: { after: p.graphs.after },
    views: { main: 'after' }
  };
}

/** What each view says when its section is missing (app.ts). */
const MISSING: Record<string, string> = {
  compare: 'no before/after fusion graphs',
  timeline: 'no compile passes',
  memory: 'no memory plan',
  profile: 'no profile'
};

function panels(root: HTMLElement): string[] {
  return [...root.querySelectorAll('.al-root > .al-view')].map(
    v => v.getAttribute('data-tab') ?? ''
  );
}

function tabs(root: HTMLElement): string[] {
  return [...root.querySelectorAll('.al-tab')].map(
    t => t.getAttribute('data-tab') ?? ''
  );
}

let shown: Shown | null = null;

afterEach(() => {
  shown?.close();
  shown = null;
  vi.restoreAllMocks();
});

const cases = HOSTS.flatMap(([name, host]) =>
  VIEW_NAMES.map(view => [name, view, host] as const)
);

describe('each host with each view', () => {
  it('covers every view name of views.ts', () => {
    expect([...VIEW_NAMES].sort()).toEqual(
      ['compare', 'graph', 'memory', 'profile', 'timeline'].sort()
    );
    expect(cases.length).toBe(HOSTS.length * VIEW_NAMES.length);
  });

  it.each(cases)(
    '%s, view=%s: shows that view alone and draws it',
    async (_, view, host) => {
      shown = await host(everyView(), view);
      const root = shown.root;
      expect(panels(root)).toEqual([view]);
      expect(tabs(root)).toEqual([]); // one view: no tab bar
      const panel = root.querySelector<HTMLElement>(`.al-root > [data-tab="${view}"]`)!;
      expect(panel.hidden).toBe(false);
      expect(panel.querySelector(`[data-view="${view}"]`)).not.toBeNull();
      expect(panel.querySelector('.al-error')).toBeNull();
    }
  );

  it.each(HOSTS)('%s, view=all: every tab', async (_, host) => {
    shown = await host(everyView(), 'all');
    expect(tabs(shown.root)).toEqual([...VIEW_NAMES]);
    expect(panels(shown.root)).toEqual([...VIEW_NAMES]);
  });

  it.each(cases)(
    '%s, view=%s of a graph alone: that view, or what it lacks',
    async (_, view, host) => {
      shown = await host(graphOnly(), view);
      const root = shown.root;
      expect(panels(root)).toEqual([view]);
      const panel = root.querySelector<HTMLElement>(`.al-root > [data-tab="${view}"]`)!;
      expect(panel.hidden).toBe(false);
      if (view === 'graph') {
        expect(panel.querySelector('[data-view="graph"]')).not.toBeNull();
        expect(panel.querySelector('.al-error')).toBeNull();
      } else {
        expect(panel.querySelector('.al-error')?.textContent).toContain(MISSING[view]);
      }
    }
  );
});

describe('MIME renderer', () => {
  it('follows a change of the view its output asks for, and keeps its view on update', async () => {
    const renderer = newRenderer();
    shown = closing(renderer);
    const render = (metadata: Record<string, unknown>) =>
      renderOutput(renderer, everyView(), metadata);
    await render({ view: 'memory' });
    expect(panels(renderer.node)).toEqual(['memory']);
    await render({ view: 'memory' });
    expect(panels(renderer.node)).toEqual(['memory']);
    await render({ view: 'timeline' });
    expect(panels(renderer.node)).toEqual(['timeline']);
    await render({});
    expect(tabs(renderer.node)).toEqual([...VIEW_NAMES]);
    expect(renderer.node.querySelectorAll('.al-root').length).toBe(1);
  });
});
