/**
 * The SVG of a graph pane's boxes (nodes, collapsed groups, expanded groups' frames, stacks
 * of repeated blocks with their buttons) and a node's fill colour: pure functions of the
 * model and the box the layout placed, used by ./graph-pane.ts. Every label is set as text.
 */
import { ellipsis, hue, s } from './dom';
import { viewerTrans } from './i18n';
import {
  GROUP_HEADER,
  GraphModel,
  STACK_CARD,
  STACK_CARDS,
  STACK_HEADER
} from './model';
import { numericsColour } from './numerics-view';
import { NumericsNode } from './numerics-types';
import { timeColour } from './profile-colour';
import { GraphNode, formatShape, outputBytes } from './types';

export type ColorMode = 'op' | 'memory' | 'changed' | 'time' | 'numerics';

/** What a stack's header buttons do. */
export type StackAction = 'prev' | 'next' | 'all' | 'stack';

export interface Box {
  item: string;
  /** a stack: the frame around a repeated block's drawn instance, cards behind it */
  kind: 'node' | 'group' | 'frame' | 'stack';
  x: number;
  y: number;
  w: number;
  h: number;
  depth: number;
}

/** What a node's colour depends on (a pane's colour mode and the data behind it). */
export interface NodeColouring {
  colorMode: ColorMode;
  nodeNumerics: Record<string, NumericsNode> | null;
  nodeTimes: Map<string, number> | null;
  /** the largest output of the graph, for colorMode 'memory' */
  maxBytes: number;
  added: Set<string>;
  modified: Set<string>;
}

export function nodeFill(node: GraphNode, c: NodeColouring): string {
  if (c.colorMode === 'numerics' && c.nodeNumerics) {
    return numericsColour(c.nodeNumerics[node.id]);
  }
  if (c.colorMode === 'time' && c.nodeTimes) {
    return timeColour(c.nodeTimes.get(node.id), c.nodeTimes);
  }
  if (c.colorMode === 'memory') {
    const bytes = outputBytes(node);
    if (bytes === null || bytes === 0) {
      return 'hsl(0, 0%, 60%)';
    }
    const t = Math.log(bytes + 1) / Math.log(c.maxBytes + 1);
    return `hsl(${Math.round(220 - 220 * t)}, 75%, 50%)`;
  }
  if (c.colorMode === 'changed') {
    if (c.added.has(node.id)) {
      return 'var(--al-added)';
    }
    if (c.modified.has(node.id)) {
      return 'var(--al-modified)';
    }
    return 'hsl(0, 0%, 60%)';
  }
  return `hsl(${hue(node.op)}, 60%, 50%)`;
}

export function drawNode(box: Box, model: GraphModel, fill: string): SVGGElement {
  const id = box.item.slice(2);
  const node = model.byId.get(id)!;
  const shape = formatShape(node.outputs?.[0]);
  const label = `${node.op}${shape ? ` ${shape}` : ''}${node.name ? `, ${node.name}` : ''}`;
  const g = s(
    'g',
    {
      class: `al-node${node.bookkeeping ? ' al-bk' : ''}`,
      'data-item': box.item,
      'data-id': id,
      'data-op': node.op,
      transform: `translate(${box.x},${box.y})`,
      role: 'button',
      tabindex: 0,
      'aria-label': label
    },
    s('title', {}, label),
    s('rect', {
      width: box.w,
      height: box.h,
      rx: 5,
      fill,
      'fill-opacity': 0.22,
      stroke: fill
    }),
    s('text', { x: 8, y: 17, 'font-weight': 600 }, ellipsis(node.op, 24)),
    s('text', { x: 8, y: 33, 'fill-opacity': 0.8 }, ellipsis(shape || node.kind, 26))
  );
  return g;
}

export function drawGroup(box: Box, model: GraphModel): SVGGElement {
  const id = box.item.slice(2);
  const group = model.groups.get(id)!;
  const t = viewerTrans();
  const count = group.count === 1 ? t.__('1 node') : t.__('%1 nodes', group.count);
  const g = s(
    'g',
    {
      class: 'al-group',
      'data-item': box.item,
      'data-group': id,
      transform: `translate(${box.x},${box.y})`,
      role: 'button',
      tabindex: 0,
      'aria-expanded': 'false',
      'aria-label': t.__('scope %1, %2, collapsed', id, count)
    },
    s('title', {}, id),
    s('rect', { width: box.w, height: box.h, rx: 7 }),
    s(
      'text',
      { x: 8, y: 18, 'font-weight': 600 },
      `\u25b8 ${ellipsis(group.label, 23)}`
    ),
    s('text', { x: 8, y: 35, 'fill-opacity': 0.75 }, count)
  );
  return g;
}

export function drawFrame(box: Box, model: GraphModel): SVGGElement {
  const id = box.item.slice(2);
  const group = model.groups.get(id)!;
  const frame = s(
    'g',
    {
      class: 'al-frame',
      'data-frame': id,
      transform: `translate(${box.x},${box.y})`
    },
    s('rect', { width: box.w, height: box.h, rx: 8 }),
    s(
      'g',
      {
        class: 'al-frame-head',
        'data-item': box.item,
        'data-group': id,
        role: 'button',
        tabindex: 0,
        'aria-expanded': 'true',
        'aria-label': viewerTrans().__(
          'scope %1, expanded, press Enter to collapse',
          id
        )
      },
      s('rect', {
        width: box.w,
        height: GROUP_HEADER,
        fill: 'transparent',
        stroke: 'none'
      }),
      s(
        'text',
        { x: 8, y: 15 },
        `\u25be ${ellipsis(group.label, Math.max(4, Math.floor(box.w / 7) - 4))}`
      )
    )
  );
  // stacks of this group shown in full: a button in the header stacks each again
  let x = box.w - 6;
  for (const st of model.stacksIn(id)) {
    if (!model.unstacked.has(st.id)) {
      continue;
    }
    const t = viewerTrans();
    const text = t.__('stack %1 × %2', st.members.length, st.label);
    const bw = text.length * 7 + 12;
    x -= bw;
    frame.appendChild(
      stackButton(
        st.id,
        'stack',
        text,
        t.__('Stack the %1 instances of %2 again', st.members.length, st.label),
        x,
        2,
        bw,
        GROUP_HEADER - 4
      )
    );
    x -= 4;
  }
  return frame;
}

/**
 * A repeated block: "32 × Block" with buttons to step to the previous / next instance
 * and to show all of them, over cards that stand for the instances not drawn.
 */
export function drawStack(box: Box, model: GraphModel): [SVGGElement, SVGGElement] {
  const id = box.item.slice(2);
  const stack = model.stacks.get(id)!;
  const t = viewerTrans();
  const n = stack.members.length;
  const instance = model.shownInstanceOf(id);
  const at = stack.members.indexOf(instance) + 1;
  const cards = STACK_CARD * STACK_CARDS;
  const w = box.w - cards;
  const hgt = box.h - cards;
  const title = t.__('%1 × %2', n, stack.label);
  const g = s('g', {
    class: 'al-stack',
    'data-stack': id,
    transform: `translate(${box.x},${box.y})`
  });
  for (let i = STACK_CARDS; i >= 1; i--) {
    g.appendChild(
      s('rect', {
        class: 'al-stack-card',
        x: i * STACK_CARD,
        y: i * STACK_CARD,
        width: w,
        height: hgt,
        rx: 8
      })
    );
  }
  g.appendChild(s('rect', { class: 'al-stack-front', width: w, height: hgt, rx: 8 }));
  const head = s(
    'g',
    {
      class: 'al-stack-head',
      'data-item': box.item,
      role: 'group',
      tabindex: 0,
      'aria-label': t.__(
        '%1, instance %2 of %3 drawn (%4); the others are stacked',
        title,
        at,
        n,
        instance
      )
    },
    s('title', {}, t.__('%1 in %2', title, stack.parent || '/')),
    s('rect', {
      width: w,
      height: STACK_HEADER - 4,
      fill: 'transparent',
      stroke: 'none'
    }),
    s('text', { class: 'al-stack-title', x: 10, y: 22, 'font-weight': 700 }, title)
  );
  g.appendChild(head);
  const buttons: Array<[StackAction, string, string, number]> = [
    ['prev', '‹', t.__('Draw the previous %1', stack.label), 26],
    ['next', '›', t.__('Draw the next %1', stack.label), 26],
    [
      'all',
      t.__('show all %1', n),
      t.__('Show all %1 instances of %2', n, stack.label),
      0
    ]
  ];
  let x = w - 6;
  for (const [action, text, label, fixed] of buttons.reverse()) {
    const bw = fixed || Math.max(40, text.length * 7 + 14);
    x -= bw;
    g.appendChild(stackButton(id, action, text, label, x, 6, bw, STACK_HEADER - 12));
    x -= 4;
  }
  return [g, head];
}

/** One of a stack's buttons (found by its data-stack-action and data-stack-id). */
function stackButton(
  stack: string,
  action: StackAction,
  text: string,
  label: string,
  x: number,
  y: number,
  w: number,
  hgt: number
): SVGGElement {
  return s(
    'g',
    {
      class: 'al-stack-btn',
      'data-stack-action': action,
      'data-stack-id': stack,
      transform: `translate(${x},${y})`,
      role: 'button',
      tabindex: 0,
      'aria-label': label
    },
    s('title', {}, label),
    s('rect', { width: w, height: hgt, rx: 4 }),
    s('text', { x: w / 2, y: hgt / 2 + 4, 'text-anchor': 'middle' }, text)
  );
}
