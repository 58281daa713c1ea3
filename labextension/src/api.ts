/**
 * Talking to the ascend-lab server extension.
 *
 * Every URL is built from `ServerConnection.makeSettings().baseUrl`, so the extension
 * works under a base URL (JupyterHub `/user/<name>/`, Binder), and requests go through
 * `ServerConnection.makeRequest` so the token and XSRF cookie are sent.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** The REST namespace of the server extension. */
export const API_NAMESPACE = 'ascend-lab/api';

/** The JSON schema id the status endpoint answers with. */
export const STATUS_SCHEMA = 'ascend-lab.status/1';

export interface IChip {
  npu: number;
  chip: number;
  name: string;
  device: number | null;
  health: string | null;
  power_w: number | null;
  temp_c: number | null;
  aicore_percent: number | null;
  memory_used_mb: number | null;
  memory_total_mb: number | null;
  hbm_used_mb: number | null;
  hbm_total_mb: number | null;
  bus_id: string | null;
}

export interface IProcess {
  npu: number;
  chip: number;
  pid: number;
  name: string;
  memory_mb: number | null;
}

export interface IVersions {
  driver: string | null;
  firmware: string | null;
  cann: string | null;
  mindspore: string | null;
  npu_smi: string | null;
}

export interface ICompatibility {
  verdict: 'match' | 'mismatch' | 'unknown' | string;
  message: string;
  install: string[];
  i18n?: IStatusTexts;
}

/** A shown text as a message template and its arguments (schema `$defs/message`). */
export interface IStatusMessage {
  template: string;
  args: (string | number | boolean | null | IStatusMessage)[];
}

/** The English text fields beside it, structured (the server renders them in `display`). */
export type IStatusTexts = Record<string, IStatusMessage>;

export interface IStatusWarning {
  message: string;
  fix: string;
  severity: 'error' | 'warning' | 'info' | string;
  component: string;
  i18n?: IStatusTexts;
}

/** `DeviceStatus.to_dict()` (schema "ascend-lab.status/1"). */
export interface IDeviceStatus {
  schema: string;
  mode: 'ascend' | 'cpu' | 'gpu' | string;
  reason: string;
  summary: string;
  chips: IChip[];
  processes: IProcess[];
  versions: IVersions;
  compatibility: ICompatibility;
  warnings: IStatusWarning[];
  collected_at: number;
  /** `reason` and `summary` as templates and arguments, when they are messages. */
  i18n?: IStatusTexts;
  /** Which Python environment the versions describe (a kernel's, the server's, or this one). */
  subject?: IStatusSubject;
}

export interface IStatusSubject {
  kind: 'process' | 'kernel' | 'server' | string;
  python?: string | null;
  kernel?: string | null;
  set_env?: string | null;
  note?: string | null;
  hub_chip?: string | number | null;
}

/** `GET ascend-lab/api/course`. */
export interface ICourseInfo {
  /** The first notebook, relative to the server root; null when not openable. */
  path: string | null;
  absolute: string | null;
  kernel: string | null;
  message: string;
  /** The edition the server picked ('en' or 'zh'); older servers leave it out. */
  lang?: string | null;
}

/** The URL of an endpoint of the server extension under `baseUrl`. */
export function apiUrl(baseUrl: string, endpoint: string): string {
  return URLExt.join(baseUrl, API_NAMESPACE, endpoint);
}

/** GET an endpoint and parse its JSON; throws `ServerConnection.ResponseError` if not OK. */
export async function requestAPI<T>(
  endpoint: string,
  query: Record<string, string> = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<T> {
  const search = URLExt.objectToQueryString(query);
  const url = apiUrl(settings.baseUrl, endpoint) + (search === '?' ? '' : search);
  const response = await ServerConnection.makeRequest(url, { method: 'GET' }, settings);
  if (!response.ok) {
    throw new ServerConnection.ResponseError(response);
  }
  return (await response.json()) as T;
}

/** The server's texts in the asked language (`?lang=`); machine fields stay English. */
export interface IStatusDisplay {
  lang: string;
  summary: string;
  reason: string;
  compatibility: string;
  warnings: { message: string; fix: string; severity: string }[];
}

/** `status` with its reason, compatibility message and warnings in `display`'s language. */
function withDisplay(
  status: IDeviceStatus,
  display: IStatusDisplay | undefined
): IDeviceStatus {
  if (!display || typeof display !== 'object') {
    return status;
  }
  const shown = Array.isArray(display.warnings) ? display.warnings : [];
  return {
    ...status,
    reason: String(display.reason ?? status.reason),
    compatibility: {
      ...status.compatibility,
      message: String(display.compatibility ?? status.compatibility.message)
    },
    // one per warning, same order; a short list (an old server) keeps the English ones
    warnings: status.warnings.map((w, i) =>
      shown[i]
        ? { ...w, message: String(shown[i].message), fix: String(shown[i].fix) }
        : w
    )
  };
}

/** Light structural check so a wrong answer (a login page, an old server) fails clearly. */
export function asDeviceStatus(data: unknown): IDeviceStatus {
  const d = data as (Partial<IDeviceStatus> & { display?: IStatusDisplay }) | null;
  if (!d || typeof d !== 'object' || d.schema !== STATUS_SCHEMA) {
    throw new Error('ascend-lab: unexpected answer from the status endpoint');
  }
  return withDisplay(structured(d), d.display);
}

/** The fields of an answer whose schema was checked, with defaults for missing ones. */
function structured(d: Partial<IDeviceStatus>): IDeviceStatus {
  return {
    schema: STATUS_SCHEMA,
    mode: String(d.mode ?? 'cpu'),
    reason: String(d.reason ?? ''),
    summary: String(d.summary ?? ''),
    chips: Array.isArray(d.chips) ? d.chips : [],
    processes: Array.isArray(d.processes) ? d.processes : [],
    versions: d.versions ?? {
      driver: null,
      firmware: null,
      cann: null,
      mindspore: null,
      npu_smi: null
    },
    compatibility: d.compatibility ?? { verdict: 'unknown', message: '', install: [] },
    warnings: Array.isArray(d.warnings) ? d.warnings : [],
    collected_at: Number(d.collected_at ?? 0),
    subject: d.subject && typeof d.subject === 'object' ? d.subject : undefined
  };
}

/** The status; `lang` (JupyterLab's display language) asks for the server's texts in it. */
export async function fetchStatus(refresh = false, lang = ''): Promise<IDeviceStatus> {
  const query: Record<string, string> = {};
  if (refresh) {
    query.refresh = '1';
  }
  if (lang) {
    query.lang = lang;
  }
  return asDeviceStatus(await requestAPI<unknown>('status', query));
}

/** The course to open, in the edition matching `lang` (JupyterLab's display language). */
export function fetchCourse(lang = ''): Promise<ICourseInfo> {
  return requestAPI<ICourseInfo>('course', lang ? { lang } : {});
}
