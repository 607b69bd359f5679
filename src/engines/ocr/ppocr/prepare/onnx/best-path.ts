/**
 * The recogniser made to answer what greedy CTC decoding reads: per time step, the most probable
 * class and its probability. Its own output, every class's probability at every step (6,625 ×
 * 40 floats for a 320 px line, a megabyte), then never leaves onnxruntime to be copied into
 * JavaScript and scanned there.
 */
import { BEST_CLASS, BEST_PROBABILITY } from '../../prepared.js';
import { intAttributeField, intsAttributeField, node, OnnxGraph, TENSOR_TYPE_FLOAT, TENSOR_TYPE_INT64 } from './graph.js';

/** Adds the outputs BEST_CLASS (int64, N × T) and BEST_PROBABILITY (float, N × T) over the model's N × T × C output. */
export function withBestPath(model: Uint8Array): Uint8Array {
  const graph = OnnxGraph.parse(model);
  const [scores, ...others] = graph.outputs;
  if (scores === undefined || others.length > 0) throw new Error(`a CTC recogniser has one output, this model has ${graph.outputs.length}`);
  graph.nodes.push(
    node('ArgMax', [scores], [BEST_CLASS], [intAttributeField('axis', 2), intAttributeField('keepdims', 0)]),
    node('ReduceMax', [scores], [BEST_PROBABILITY], [intsAttributeField('axes', [2]), intAttributeField('keepdims', 0)]),
  );
  graph.addOutput(BEST_CLASS, TENSOR_TYPE_INT64);
  graph.addOutput(BEST_PROBABILITY, TENSOR_TYPE_FLOAT);
  return graph.serialize();
}
