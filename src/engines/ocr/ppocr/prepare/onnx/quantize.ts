/**
 * The recogniser's dense convolutions in 8-bit integers: each Conv with constant weights and one
 * group becomes a QLinearConv between a QuantizeLinear of its input and a DequantizeLinear of its
 * output, so everything between two convolutions (activations, depthwise convolutions, residual
 * adds, attention) stays in float as exported. The dense 1×1 convolutions are three quarters of
 * the recogniser's time; depthwise ones are cheap, and their re-parameterised kernels (one large
 * centre weight) lose too much in 8 bits.
 * Weights are quantized per output channel, symmetric; activations per tensor, unsigned, over the
 * range they take on real lines (see recogniser-calibration.ts). Operator set 10 is the least QLinearConv
 * needs: an older model is raised to it.
 */
import {
  attribute,
  intAttribute,
  intsAttribute,
  node,
  OnnxGraph,
  TENSOR_TYPE_FLOAT,
  TENSOR_TYPE_INT32,
  TENSOR_TYPE_INT64,
  TENSOR_TYPE_INT8,
  TENSOR_TYPE_UINT8,
  type OnnxNode,
} from './graph.js';

/** The least and greatest value each tensor takes, by name, and the convolutions (by output) left in float. */
export interface Calibration {
  ranges: Readonly<Record<string, readonly [number, number]>>;
  keepFloat: readonly string[];
}

/**
 * Largest weight magnitude: 127 where the CPU multiplies 8-bit pairs exactly (VNNI, ARM), 63 on
 * x86 without VNNI, whose 8-bit multiply-add saturates 16-bit sums at the full range.
 */
export type WeightLevels = 127 | 63;

const QUANTIZED_OPSET = 10;
const ACTIVATION_LEVELS = 255;

interface Quantized {
  scale: string;
  zeroPoint: string;
  scaleValue: number;
}

/** The convolutions that can run in integers: constant 4-D weights, one group, one output. */
export function denseConvolutions(graph: OnnxGraph): OnnxNode[] {
  return graph.nodes.filter(
    (n) => n.opType === 'Conv' && n.outputs.length === 1 && (intAttribute(n, 'group') ?? 1) === 1 && graph.floatConstant(n.inputs[1] ?? '')?.dims.length === 4,
  );
}

/** The tensors whose ranges quantizing needs: every dense convolution's input and output. */
export function tensorsToCalibrate(model: Uint8Array): string[] {
  return [...new Set(denseConvolutions(OnnxGraph.parse(model)).flatMap((conv) => [conv.inputs[0]!, conv.outputs[0]!]))];
}

/** The model with `names` as float outputs too, to measure them. */
export function withOutputs(model: Uint8Array, names: readonly string[]): Uint8Array {
  const graph = OnnxGraph.parse(model);
  for (const name of names) graph.addOutput(name, TENSOR_TYPE_FLOAT);
  return graph.serialize();
}

/**
 * The model with its dense convolutions in integers, except those the calibration keeps in float
 * or has no ranges for. Fails when the calibration names no tensor of this model (it was made for
 * another one).
 */
export function quantizeConvolutions(model: Uint8Array, calibration: Calibration, weightLevels: WeightLevels): Uint8Array {
  const graph = OnnxGraph.parse(model);
  const convolutions = denseConvolutions(graph).filter(
    (conv) => calibration.ranges[conv.inputs[0]!] && calibration.ranges[conv.outputs[0]!] && !calibration.keepFloat.includes(conv.outputs[0]!),
  );
  if (convolutions.length === 0) throw new Error('the calibration does not match this model: none of its convolutions has ranges');
  if (graph.opsetVersion < QUANTIZED_OPSET) raiseToOpset10(graph);
  const integers = new Map<string, Quantized & { name: string }>();
  const quantizeParameters = (name: string): Quantized => {
    const [low, high] = [Math.min(0, calibration.ranges[name]![0]), Math.max(0, calibration.ranges[name]![1])];
    const scaleValue = high > low ? (high - low) / ACTIVATION_LEVELS : 1;
    const scale = graph.freshName(`${name}.scale`);
    const zeroPoint = graph.freshName(`${name}.zero_point`);
    graph.addConstant(scale, { dims: [], elementType: TENSOR_TYPE_FLOAT, raw: bytesOf(Float32Array.of(scaleValue)) });
    graph.addConstant(zeroPoint, { dims: [], elementType: TENSOR_TYPE_UINT8, raw: Uint8Array.of(Math.round(-low / scaleValue)) });
    return { scale, zeroPoint, scaleValue };
  };
  for (const conv of convolutions) {
    const [input, weightName, biasName] = conv.inputs as [string, string, string | undefined];
    const output = conv.outputs[0]!;
    let source = integers.get(input);
    if (!source) {
      source = { ...quantizeParameters(input), name: graph.freshName(`${input}.integers`) };
      graph.insertBefore(conv, node('QuantizeLinear', [input, source.scale, source.zeroPoint], [source.name]));
      integers.set(input, source);
    }
    const target = { ...quantizeParameters(output), name: graph.freshName(`${output}.integers`) };
    const weights = integerWeights(graph, weightName, biasName, source.scaleValue, weightLevels);
    const qconv: OnnxNode = {
      opType: 'QLinearConv',
      inputs: [source.name, source.scale, source.zeroPoint, weights.weight, weights.scale, weights.zeroPoint, target.scale, target.zeroPoint, weights.bias],
      outputs: [target.name],
      rest: conv.rest,
    };
    graph.nodes.splice(graph.nodes.indexOf(conv), 1, qconv, node('DequantizeLinear', [target.name, target.scale, target.zeroPoint], [output]));
    integers.set(output, target);
  }
  graph.removeUnusedConstants();
  return graph.serialize();
}

/** Per output channel: int8 weights and their scale; the bias in int32 at input scale × weight scale. */
function integerWeights(graph: OnnxGraph, weightName: string, biasName: string | undefined, inputScale: number, levels: WeightLevels) {
  const weight = graph.floatConstant(weightName)!;
  const channels = weight.dims[0]!;
  const perChannel = weight.values.length / channels;
  const bias = biasName ? graph.floatConstant(biasName)?.values : undefined;
  const scales = new Float32Array(channels);
  const weights = new Int8Array(weight.values.length);
  const biases = new Int32Array(channels);
  for (let c = 0; c < channels; c++) {
    const [from, to] = [c * perChannel, (c + 1) * perChannel];
    let largest = 0;
    for (let i = from; i < to; i++) largest = Math.max(largest, Math.abs(weight.values[i]!));
    const scale = largest > 0 ? largest / levels : 1;
    scales[c] = scale;
    for (let i = from; i < to; i++) weights[i] = Math.round(weight.values[i]! / scale);
    biases[c] = Math.round((bias?.[c] ?? 0) / (inputScale * scale));
  }
  const names = {
    weight: graph.freshName(`${weightName}.integers`),
    scale: graph.freshName(`${weightName}.scale`),
    zeroPoint: graph.freshName(`${weightName}.zero_point`),
    bias: graph.freshName(`${weightName}.bias_integers`),
  };
  graph.addConstant(names.weight, { dims: weight.dims, elementType: TENSOR_TYPE_INT8, raw: bytesOf(weights) });
  graph.addConstant(names.scale, { dims: [channels], elementType: TENSOR_TYPE_FLOAT, raw: bytesOf(scales) });
  graph.addConstant(names.zeroPoint, { dims: [channels], elementType: TENSOR_TYPE_INT8, raw: new Uint8Array(channels) });
  graph.addConstant(names.bias, { dims: [channels], elementType: TENSOR_TYPE_INT32, raw: bytesOf(biases) });
  return names;
}

const SLICE_ATTRIBUTES = ['starts', 'ends', 'axes'];

/** Operator set 9 → 10: of PP-OCR's operators only Slice changed, taking its starts, ends and axes as inputs. */
function raiseToOpset10(graph: OnnxGraph): void {
  for (const slice of graph.nodes.filter((n) => n.opType === 'Slice' && n.inputs.length === 1)) {
    const inputs = SLICE_ATTRIBUTES.flatMap((name) => {
      const values = intsAttribute(slice, name);
      if (!values) return [];
      const constant = graph.freshName(`${slice.outputs[0]}.${name}`);
      graph.addConstant(constant, { dims: [values.length], elementType: TENSOR_TYPE_INT64, raw: bytesOf(BigInt64Array.from(values, BigInt)) });
      return [constant];
    });
    slice.inputs = [slice.inputs[0]!, ...inputs];
    slice.rest = slice.rest.filter((field) => !SLICE_ATTRIBUTES.some((name) => attribute({ ...slice, rest: [field] }, name)));
  }
  graph.setOpsetVersion(QUANTIZED_OPSET);
}

const bytesOf = (array: ArrayBufferView) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
