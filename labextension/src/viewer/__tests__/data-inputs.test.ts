import { describe, expect, it } from 'vitest';
import { GraphModel, dataInputs } from '../model';
import { checkPayload, GraphData } from '../types';
import { coursePayload, node } from './payloads';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

/** A graph whose Depend and an unknown monad op say which of their inputs carry data. */
function graph(listed: boolean | undefined): GraphData {
  return {
    name: 'g',
    ...(listed === undefined ? {} : { data_inputs_listed: listed }),
    nodes: [
      node('a', 'Conv2D', [], 'S'),
      node('b', 'ReLU', [], 'S'),
      // the payload says the data is the *second* input (a rule the view cannot guess)
      node('dep', 'Depend', ['a', 'b'], 'S', { data_inputs: ['b'] }),
      node('c', 'Add', ['dep'], 'S'),
      // an op the view does not know, marked bookkeeping, carrying no data
      node('m', 'SomeNewMonadOp', ['c'], 'S', { bookkeeping: true, data_inputs: [] }),
      node('d', 'Mul', ['m'], 'S')
    ]
  };
}

describe('data inputs from the payload', () => {
  it('bridges hidden nodes through the inputs the payload lists', () => {
    const m = new GraphModel(graph(true));
    expect(m.visible.map(n => n.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(m.edges).toEqual([['b', 'c']]);
  });

  it('derives them for a graph saved before the field (first input, UpdateState none)', () => {
    const m = new GraphModel(graph(undefined));
    expect(m.edges).toEqual([
      ['a', 'c'],
      ['c', 'd']
    ]);
  });

  it('takes all inputs of a listed node without the field', () => {
    const n = node('t', 'MakeTuple', ['a', 'b']);
    expect(dataInputs(n, true)).toEqual(['a', 'b']);
    expect(dataInputs(node('u', 'UpdateState', ['s', 'a']), false)).toEqual([]);
    expect(
      dataInputs(node('u', 'UpdateState', ['s', 'a'], 'S', { data_inputs: [] }), true)
    ).toEqual([]);
    expect(dataInputs(node('l', 'Load', ['p', 'u']), false)).toEqual(['p']);
  });

  it('rejects data_inputs that are not a list of strings', () => {
    const p = coursePayload() as Loose;
    p.graphs.after.nodes[0].data_inputs = [1];
    expect(() => checkPayload(p)).toThrow(
      /nodes\[0\].data_inputs must be a list of strings/
    );
  });
});
