/**
 * ascend-lab for JupyterLab: the NPU status-bar item, the device panel and the course
 * launcher. (The graph MIME renderer is a separate entry point: `hosts/mime.ts`.)
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Clipboard, Dialog, ICommandPalette, showDialog } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { Signal } from '@lumino/signaling';

import { fetchCourse, fetchStatus } from './api';
import { documentPlugin } from './hosts/document';
import { npuIcon } from './icons';
import { instructorPlugin } from './instructor-plugin';
import { registerCourse } from './launcher';
import { DevicePanel } from './device-panel';
import { NpuStatusItem, StatusPoller } from './status';
import { TRANSLATION_DOMAIN } from './trans';

export const PLUGIN_ID = 'ascend-lab:plugin';
export const PANEL_ID = 'ascend-lab-device-panel';

export const CommandIDs = {
  showPanel: 'ascend-lab:show-device-panel',
  refresh: 'ascend-lab:refresh-status'
} as const;

interface ISettings {
  pollInterval: number;
  showStatusItem: boolean;
  panelArea: 'left' | 'right';
}

const DEFAULTS: ISettings = {
  pollInterval: 5,
  showStatusItem: true,
  panelArea: 'right'
};

function readSettings(settings: ISettingRegistry.ISettings | null): ISettings {
  if (settings === null) {
    return DEFAULTS;
  }
  const c = settings.composite as Partial<ISettings>;
  return {
    pollInterval:
      typeof c.pollInterval === 'number' ? c.pollInterval : DEFAULTS.pollInterval,
    showStatusItem:
      typeof c.showStatusItem === 'boolean'
        ? c.showStatusItem
        : DEFAULTS.showStatusItem,
    panelArea: c.panelArea === 'left' ? 'left' : 'right'
  };
}

const devicePlugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Ascend NPU status in the status bar and a device panel.',
  autoStart: true,
  optional: [ITranslator, IStatusBar, ISettingRegistry, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    translator: ITranslator | null,
    statusBar: IStatusBar | null,
    registry: ISettingRegistry | null,
    palette: ICommandPalette | null
  ): void => {
    const language = translator ?? nullTranslator;
    const trans = language.load(TRANSLATION_DOMAIN);
    // Start polling and show the item at once with the defaults; settings (a server round
    // trip) are applied when they arrive, so the status shows up as early as possible.
    let current = DEFAULTS;
    let settings: ISettingRegistry.ISettings | null = null;

    const poller = new StatusPoller({
      // the server's reason and warnings come back in JupyterLab's display language
      fetch: (refresh: boolean) => fetchStatus(refresh, language.languageCode),
      interval: current.pollInterval
    });
    const panel = new DevicePanel({
      poller,
      trans,
      copy: text => Clipboard.copyToSystem(text)
    });
    panel.id = PANEL_ID;
    panel.title.icon = npuIcon;
    panel.title.caption = trans.__('Ascend NPU devices');
    let placedArea = current.panelArea;
    app.shell.add(panel, placedArea, { rank: 900 });

    app.commands.addCommand(CommandIDs.showPanel, {
      label: trans.__('Show the NPU device panel'),
      execute: () => app.shell.activateById(PANEL_ID)
    });
    app.commands.addCommand(CommandIDs.refresh, {
      label: trans.__('Refresh the NPU status'),
      execute: () => poller.refresh()
    });
    if (palette) {
      const category = trans.__('Ascend');
      palette.addItem({ command: CommandIDs.showPanel, category });
      palette.addItem({ command: CommandIDs.refresh, category });
    }

    const statusItemActiveChanged = new Signal<DevicePanel, void>(panel);
    if (statusBar) {
      const item = new NpuStatusItem({
        poller,
        trans,
        onClick: () => void app.commands.execute(CommandIDs.showPanel)
      });
      item.id = 'ascend-lab-status';
      statusBar.registerStatusItem('ascend-lab:status', {
        item,
        align: 'left',
        rank: 4,
        isActive: () => current.showStatusItem && !poller.serverMissing,
        activeStateChanged: statusItemActiveChanged
      });
      poller.changed.connect(() => {
        if (poller.serverMissing) {
          statusItemActiveChanged.emit();
        }
      });
    }

    const apply = (): void => {
      current = readSettings(settings);
      poller.setInterval(current.pollInterval);
      statusItemActiveChanged.emit();
      if (current.panelArea !== placedArea) {
        placedArea = current.panelArea;
        app.shell.add(panel, placedArea, { rank: 900 });
      }
    };
    if (registry) {
      registry
        .load(PLUGIN_ID)
        .then(loaded => {
          settings = loaded;
          apply();
          loaded.changed.connect(apply);
        })
        .catch(err =>
          console.warn('ascend-lab: could not load settings, using defaults', err)
        );
    }
  }
};

const coursePlugin: JupyterFrontEndPlugin<void> = {
  id: 'ascend-lab:course',
  description: 'A launcher card and command that open the Ascend course.',
  autoStart: true,
  optional: [ITranslator, ILauncher, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    translator: ITranslator | null,
    launcher: ILauncher | null,
    palette: ICommandPalette | null
  ): void => {
    const language = translator ?? nullTranslator;
    const trans = language.load(TRANSLATION_DOMAIN);
    registerCourse(app, trans, {
      launcher,
      palette,
      icon: npuIcon,
      // the card opens the edition that matches JupyterLab's display language ('zh-CN' -> zh)
      fetch: () => fetchCourse(language.languageCode),
      notify: async (title, body) => {
        // a string body is rendered as text by showDialog
        await showDialog({ title, body, buttons: [Dialog.okButton()] });
      }
    });
  }
};

export default [devicePlugin, coursePlugin, documentPlugin, instructorPlugin];
