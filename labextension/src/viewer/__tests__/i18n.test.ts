// The viewer's labels in Chinese: with JupyterLab's own translation machinery loading the
// shipped zh_CN catalogue (the MIME renderer and document hosts), and with the catalogue
// bundled for the anywidget / standalone HTML hosts.
import '../../__tests__/dom-shim';

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TranslationManager } from '@jupyterlab/translation';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { GraphRenderer } from '../../hosts/mime';
import { englishTrans, ITrans, TRANSLATION_DOMAIN } from '../../trans';
import { renderPayload, ViewerHandle } from '../app';
import { CATALOGUES } from '../catalogues.generated';
import { languageTag, setViewerTrans, transForLanguage, viewerTrans } from '../i18n';
import { coursePayload } from './payloads';

const root = join(__dirname, '..', '..', '..');
const JSON_FILE = join(root, '../ascend_lab/locale/zh_CN/LC_MESSAGES/ascend_lab.json');
const shipped = JSON.parse(readFileSync(JSON_FILE, 'utf8')) as Record<string, unknown>;

/** JupyterLab's TranslationManager with the zh_CN language data the server would send. */
async function jupyterLabZh(): Promise<ITrans> {
  const connector = {
    fetch: async () => ({ data: { [TRANSLATION_DOMAIN]: shipped }, message: '' }),
    save: async () => undefined,
    remove: async () => undefined,
    list: async () => ({ ids: [], values: [] })
  };
  const manager = new TranslationManager('', undefined, undefined, connector as never);
  await manager.fetch('zh_CN');
  return manager.load(TRANSLATION_DOMAIN);
}

let zh: ITrans;
let handle: ViewerHandle | null = null;
let host: HTMLDivElement;

beforeAll(async () => {
  zh = await jupyterLabZh();
});

afterEach(() => {
  handle?.dispose();
  handle = null;
  host?.remove();
  setViewerTrans(null);
});

function mount(options = {}): ViewerHandle {
  host = document.createElement('div');
  document.body.appendChild(host);
  handle = renderPayload(host, coursePayload(), { worker: false, ...options });
  return handle;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) {
    await new Promise(r => setTimeout(r, 0));
  }
}

const text = (selector: string): string =>
  host.querySelector(selector)?.textContent ?? `(no ${selector})`;

describe('viewer labels with a zh_CN translator', () => {
  it('JupyterLab itself translates a viewer message from the shipped catalogue', () => {
    expect(zh.__('Before fusion')).toBe('融合前');
    expect(zh.__('peak %1', '16.0 KiB')).toBe('峰值 16.0 KiB');
  });

  it('shows tabs and the before/after fusion panes in Chinese', async () => {
    const h = mount({ trans: zh });
    expect([...host.querySelectorAll('.al-tab')].map(t => t.textContent)).toEqual([
      '图',
      '融合前 / 融合后',
      'Pass 时间线',
      '内存'
    ]);
    h.app!.show('compare');
    await h.app!.compareView!.panes[1].ready;
    const titles = [...host.querySelectorAll('[data-view="compare"] .al-pane-title')];
    expect(titles.map(t => t.firstChild!.textContent)).toEqual(['融合前', '融合后']);
    expect(titles[0].querySelector('.al-sub')!.textContent).toBe('4 个算子');
    expect(titles[1].querySelector('.al-sub')!.textContent).toBe(
      '3 个算子，其中 1 个为融合算子'
    );
    expect(
      host
        .querySelector('[data-view="compare"] input[type="search"]')!
        .getAttribute('placeholder')
    ).toBe('搜索算子、作用域、名称');
    // the fused kernel's panel: Chinese labels, English keys and payload names unchanged
    await h.app!.compareView!.panes[1].select('k1');
    await settle();
    const panel = host.querySelector('[data-view="compare"] .al-panel')!;
    const labels = [...panel.querySelectorAll('.al-node-table tr')].map(tr => [
      tr.children[0].textContent,
      tr.children[1].getAttribute('data-field')
    ]);
    expect(labels).toContainEqual(['算子', 'op']);
    expect(labels).toContainEqual(['作用域', 'scope']);
    expect(labels).toContainEqual(['融合算子', 'fused kernel']);
    expect(labels).toContainEqual(['融合自', 'fused from']);
    expect(panel.querySelector('[data-field="fused kernel"]')!.textContent).toBe(
      'Fused_BatchNorm_ReLU_fusion'
    );
    expect(panel.querySelector('[data-field="fused from"]')!.textContent).toBe('2, 4');
  });

  it('shows the pass slider, its controls and the pass info in Chinese', async () => {
    const h = mount({ trans: zh, view: 'timeline' });
    const tl = h.app!.timelineView!;
    await settle();
    await tl.graphs.panes[0].ready;
    expect(tl.slider.getAttribute('aria-label')).toBe('编译 Pass');
    expect(host.querySelector('[data-view="timeline"] label')!.textContent).toBe(
      '跳过未改变图的 Pass'
    );
    expect(text('.al-timeline .al-muted')).toBe('共 4 个 Pass，其中 3 个改变了图');
    await tl.go(2);
    expect(tl.slider.getAttribute('aria-valuetext')).toBe(
      'graph_kernel_cluster (图算融合)'
    );
    expect(text('[data-field="changes"]')).toBe('新增 1，删除 1，修改 1');
    expect(text('.al-passinfo .al-explain')).toBe(
      '图算融合：相邻的逐元素算子被聚合，并编译为融合算子（AKG）。'
    );
    // the pass name is the payload's, untranslated
    expect(text('[data-field="pass-name"]')).toBe('graph_kernel_cluster');
  });

  it('shows the node panel and memory map in Chinese', async () => {
    const h = mount({ trans: zh });
    const pane = h.app!.graphView!.panes[0];
    await pane.ready;
    expect(text('[data-view="graph"] .al-panel .al-muted')).toBe(
      '单击节点（或用 Tab 键移到节点上再按 Enter）查看详细信息。单击作用域框可将其展开。'
    );
    await pane.select('1');
    await settle();
    expect(text('[data-view="graph"] [data-field="memory"]')).toBe(
      '8192 B @ 偏移 0，执行步 0-1'
    );
    expect(text('[data-view="graph"] [data-field="op"]')).toBe('Conv2D');
    h.app!.show('memory');
    expect(text('[data-field="peak"]')).toBe('峰值 16.0 KiB');
    expect(text('[data-field="no_reuse"]')).toBe('不复用 24.0 KiB（内存复用节省 33%）');
  });

  it('goes back to English when the page has no translator', async () => {
    mount({ trans: zh });
    handle!.dispose();
    host.remove();
    setViewerTrans(null);
    expect(viewerTrans()).toBe(englishTrans);
    mount();
    expect(host.querySelector('.al-tab')!.textContent).toBe('Graph');
  });
});

describe('MIME renderer', () => {
  it("labels the viewer in JupyterLab's display language", async () => {
    const translator = { load: () => zh, languageCode: 'zh-CN' };
    const renderer = new GraphRenderer({
      mimeType: 'application/vnd.ascend-lab.graph+json',
      sanitizer: undefined as never,
      resolver: null,
      linkHandler: null,
      latexTypesetter: null,
      translator: translator as never
    });
    host = document.createElement('div');
    document.body.appendChild(host);
    host.appendChild(renderer.node);
    await renderer.renderModel({
      data: { 'application/vnd.ascend-lab.graph+json': coursePayload() }
    } as never);
    expect([...host.querySelectorAll('.al-tab')].map(t => t.textContent)).toContain(
      '融合前 / 融合后'
    );
    await renderer.renderModel({
      data: { 'application/vnd.ascend-lab.graph+json': { schema: 'nope' } }
    } as never);
    expect(host.textContent).toContain('ascend-lab 查看器：数据有误：');
    renderer.dispose();
  });
});

describe('the catalogue bundled for the widget and the standalone page', () => {
  it('is the shipped ascend_lab.json, limited to the messages src/viewer and its bundled hosts use', () => {
    const used = JSON.parse(
      execFileSync(
        process.execPath,
        [
          join(root, 'scripts', 'extract-messages.mjs'),
          'viewer',
          'hosts/anywidget.ts',
          'hosts/standalone.ts'
        ],
        { encoding: 'utf8' }
      )
    ) as string[];
    expect(used).toContain('Before fusion');
    // the hosts' own messages (src/hosts/anywidget.ts, standalone.ts) are bundled too
    expect(used).toContain('the kernel did not answer (is it still running?)');
    expect(used).toContain('ascend-lab: the embedded payload is not valid JSON (%1)');
    const expected = Object.fromEntries(
      used.map(id => [id, (shipped[id] as string[])[0]])
    );
    expect(Object.keys(CATALOGUES)).toEqual(['zh-CN']);
    expect(CATALOGUES['zh-CN']).toEqual(expected);
  });

  it('is chosen by the language Python sends', () => {
    expect(languageTag('zh_CN.UTF-8')).toBe('zh-CN');
    expect(languageTag('EN')).toBe('en');
    expect(transForLanguage('zh_CN', CATALOGUES).__('After fusion')).toBe('融合后');
    expect(transForLanguage('zh', CATALOGUES).__('After fusion')).toBe('融合后');
    expect(transForLanguage('zh-CN', CATALOGUES).__('peak %1', '1 KiB')).toBe(
      '峰值 1 KiB'
    );
    expect(transForLanguage('en', CATALOGUES)).toBe(englishTrans);
    expect(transForLanguage('fr_FR', CATALOGUES)).toBe(englishTrans);
    expect(transForLanguage('', CATALOGUES)).toBe(englishTrans);
    // a message the catalogue lacks shows in English, placeholders filled
    expect(transForLanguage('zh-CN', CATALOGUES).__('no such %1', 'x')).toBe(
      'no such x'
    );
  });
});
