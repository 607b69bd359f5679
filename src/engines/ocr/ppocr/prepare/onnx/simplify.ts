/**
 * Exact algebraic rewrites of PP-OCR's exported graphs. Paddle exports each activation of its
 * LCNet backbones as a scalar affine (Mul, Add), hard-swish spelt out in four operations
 * (Add 3, Clip 0..6, Mul, Div 6) and another scalar affine: eight passes over the feature map
 * between two convolutions, which onnxruntime neither fuses nor folds. Rewritten:
 * - a scalar affine right after a convolution goes into its weights and bias;
 * - hard-swish becomes x · HardSigmoid(x), two passes;
 * - a scalar affine right before a convolution goes into its weights (and its bias when the
 *   convolution pads nothing; with padding, the shift stays as one Add so the border reads zeros
 *   as before).
 * Each rule fires only on the exact pattern, with every intermediate read by nothing else.
 */
import { floatAttributeField, floatAttribute, intsAttribute, node, stringAttribute, numel, OnnxGraph, type FloatTensor, type OnnxNode } from './graph.js';

export interface Simplified {
  model: Uint8Array;
  /** Nodes the rewrites removed. */
  removed: number;
}

export function simplifyModel(bytes: Uint8Array): Simplified {
  const graph = OnnxGraph.parse(bytes);
  const before = graph.nodes.length;
  for (const conv of graph.nodes.filter((n) => n.opType === 'Conv')) foldAffineAfter(graph, conv);
  for (const div of graph.nodes.filter((n) => n.opType === 'Div')) fuseHardSwish(graph, div);
  for (const conv of graph.nodes.filter((n) => n.opType === 'Conv')) foldAffineBefore(graph, conv);
  graph.removeUnusedConstants();
  return { model: graph.serialize(), removed: before - graph.nodes.length };
}

/** The value of a one-element float constant input of `node` other than `other`. */
function scalarInput(graph: OnnxGraph, node: OnnxNode, other: string): { value: number; name: string } | undefined {
  if (node.inputs.length !== 2) return undefined;
  const name = node.inputs[0] === other ? node.inputs[1]! : node.inputs[1] === other ? node.inputs[0]! : undefined;
  if (name === undefined) return undefined;
  const tensor = graph.floatConstant(name);
  return tensor && tensor.values.length === 1 ? { value: tensor.values[0]!, name } : undefined;
}

interface ConvParameters {
  weight: FloatTensor;
  bias: FloatTensor;
}

function convParameters(graph: OnnxGraph, conv: OnnxNode): ConvParameters | undefined {
  const weight = conv.inputs[1] !== undefined ? graph.floatConstant(conv.inputs[1]) : undefined;
  if (!weight || weight.dims.length !== 4) return undefined;
  const bias = conv.inputs[2] !== undefined ? graph.floatConstant(conv.inputs[2]) : { dims: [weight.dims[0]!], values: new Float32Array(weight.dims[0]!) };
  return bias && bias.values.length === weight.dims[0] ? { weight, bias } : undefined;
}

/** Writes new weight and bias constants for `conv` (fresh names: a constant may be shared). */
function setConvParameters(graph: OnnxGraph, conv: OnnxNode, { weight, bias }: ConvParameters): void {
  const weightName = graph.freshName(`${conv.outputs[0]}.folded_weight`);
  graph.setFloatConstant(weightName, weight);
  const biasName = graph.freshName(`${conv.outputs[0]}.folded_bias`);
  graph.setFloatConstant(biasName, bias);
  conv.inputs = [conv.inputs[0]!, weightName, biasName];
}

const scaled = (tensor: FloatTensor, factor: number): FloatTensor => ({ dims: tensor.dims, values: tensor.values.map((v) => v * factor) });

/** conv → Mul s → Add t (either or both, in any order): W·s, b·s + t. */
function foldAffineAfter(graph: OnnxGraph, conv: OnnxNode): void {
  let parameters = convParameters(graph, conv);
  if (!parameters || conv.outputs.length !== 1) return;
  let folded = false;
  for (;;) {
    const next = graph.soleConsumer(conv.outputs[0]!);
    if (!next || (next.opType !== 'Mul' && next.opType !== 'Add')) break;
    const scalar = scalarInput(graph, next, conv.outputs[0]!);
    if (!scalar) break;
    parameters =
      next.opType === 'Mul'
        ? { weight: scaled(parameters.weight, scalar.value), bias: scaled(parameters.bias, scalar.value) }
        : { weight: parameters.weight, bias: { dims: parameters.bias.dims, values: parameters.bias.values.map((v) => v + scalar.value) } };
    conv.outputs = next.outputs;
    graph.remove(next);
    folded = true;
  }
  if (folded) setConvParameters(graph, conv, parameters);
}

/** Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6) → Mul(x, HardSigmoid(x; 1/6, 0.5)). */
function fuseHardSwish(graph: OnnxGraph, div: OnnxNode): void {
  const product = graph.producer(div.inputs[0]!);
  if (product?.opType !== 'Mul' || graph.floatConstant(div.inputs[1]!)?.values[0] !== 6 || graph.soleConsumer(product.outputs[0]!) !== div) return;
  for (const [x, gate] of [product.inputs, [...product.inputs].reverse()] as const) {
    const clip = graph.producer(gate!);
    if (clip?.opType !== 'Clip' || graph.soleConsumer(clip.outputs[0]!) !== product || !clipsToSix(graph, clip)) continue;
    const shift = graph.producer(clip.inputs[0]!);
    if (shift?.opType !== 'Add' || graph.soleConsumer(shift.outputs[0]!) !== clip || scalarInput(graph, shift, x!)?.value !== 3) continue;
    const hardSigmoid = node('HardSigmoid', [x!], [clip.outputs[0]!], [floatAttributeField('alpha', 1 / 6), floatAttributeField('beta', 0.5)]);
    graph.insertBefore(shift, hardSigmoid);
    product.outputs = div.outputs;
    graph.remove(shift, clip, div);
    return;
  }
}

/** Clip to [0, 6], as attributes (opset < 11) or as constant inputs. */
function clipsToSix(graph: OnnxGraph, clip: OnnxNode): boolean {
  const bound = (index: number, name: string) => {
    const input = clip.inputs[index];
    return input ? graph.floatConstant(input)?.values[0] : floatAttribute(clip, name);
  };
  return bound(1, 'min') === 0 && bound(2, 'max') === 6;
}

interface Affine {
  /** The value scaled and shifted. */
  source: string;
  scale: number;
  shift: number;
  mul: OnnxNode;
  add: OnnxNode;
}

/** x · s + t feeding `conv`: a Mul by a scalar, then an Add of one, each read by the next alone. */
function affineBefore(graph: OnnxGraph, conv: OnnxNode): Affine | undefined {
  const add = graph.producer(conv.inputs[0]!);
  if (add?.opType !== 'Add' || graph.soleConsumer(add.outputs[0]!) !== conv) return undefined;
  for (const product of add.inputs) {
    const mul = graph.producer(product);
    const shift = scalarInput(graph, add, product);
    if (mul?.opType !== 'Mul' || !shift || graph.soleConsumer(product) !== add) continue;
    for (const source of mul.inputs) {
      const scale = scalarInput(graph, mul, source);
      if (scale && scale.value !== 0) return { source, scale: scale.value, shift: shift.value, mul, add };
    }
  }
  return undefined;
}

/** x → Mul s → Add t → conv: W·s, and t into the bias (no padding) or kept as x + t/s. */
function foldAffineBefore(graph: OnnxGraph, conv: OnnxNode): void {
  const parameters = convParameters(graph, conv);
  const affine = parameters && affineBefore(graph, conv);
  if (!parameters || !affine) return;
  const { source, scale, shift, mul, add } = affine;
  const weight = scaled(parameters.weight, scale);
  if (pads(conv)) {
    const shiftName = graph.freshName(`${add.outputs[0]}.shift`);
    graph.setFloatConstant(shiftName, { dims: [1], values: Float32Array.of(shift / scale) });
    add.inputs = [source, shiftName];
    graph.remove(mul);
    setConvParameters(graph, conv, { weight, bias: parameters.bias });
    return;
  }
  // Each output channel adds t times the sum of its weights.
  const perOutput = numel(parameters.weight.dims.slice(1));
  const bias = parameters.bias.values.map((b, o) => {
    let sum = 0;
    for (let i = o * perOutput; i < (o + 1) * perOutput; i++) sum += parameters.weight.values[i]!;
    return b + shift * sum;
  });
  conv.inputs = [source, ...conv.inputs.slice(1)];
  graph.remove(mul, add);
  setConvParameters(graph, conv, { weight, bias: { dims: parameters.bias.dims, values: bias } });
}

function pads(conv: OnnxNode): boolean {
  const autoPad = stringAttribute(conv, 'auto_pad') ?? 'NOTSET';
  return autoPad.startsWith('SAME') || (intsAttribute(conv, 'pads') ?? []).some((p) => p !== 0);
}
