import { readFile } from 'node:fs/promises';
import '../../../../src/engines/ocr/ppocr/no-telemetry.js';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { packagedModelFiles } from '../../../../src/engines/ocr/ppocr/models.js';
import { withBestPath } from '../../../../src/engines/ocr/ppocr/prepare/onnx/best-path.js';
import { BEST_CLASS, BEST_PROBABILITY } from '../../../../src/engines/ocr/ppocr/prepared.js';
import { OnnxGraph } from '../../../../src/engines/ocr/ppocr/prepare/onnx/graph.js';
import { simplifyModel } from '../../../../src/engines/ocr/ppocr/prepare/onnx/simplify.js';
import { denseConvolutions, quantizeConvolutions, tensorsToCalibrate, withOutputs, type Calibration } from '../../../../src/engines/ocr/ppocr/prepare/onnx/quantize.js';
import { calibrationFor } from '../../../../src/engines/ocr/ppocr/prepare/prepare.js';
import { RECOGNISER_CALIBRATION } from '../../../../src/engines/ocr/ppocr/prepare/recogniser-calibration.js';
import { sha256OfFile } from '../../../../src/platform/models/checksums.js';
import { exactInt8DotProducts } from '../../../../src/platform/cpu.js';
import sharp from 'sharp';
import { fixturePath } from '../../../../scripts/lib/paths.js';
import { bytesField, floatField, readFields, stringField, varintField, WireType, writeFields, type Field } from '../../../../src/engines/ocr/ppocr/prepare/onnx/wire.js';

describe('protobuf wire format', () => {
  it('writes back what it reads: varints (negative ones too), fixed 32-bit values and nested messages', () => {
    const inner = writeFields([varintField(1, 300), stringField(2, '卷积')]);
    const fields: Field[] = [varintField(1, -2), floatField(2, 0.5), bytesField(3, inner), varintField(4, 2n ** 40n)];
    const bytes = writeFields(fields);
    const read = readFields(bytes);
    expect(read.map((f) => [f.number, f.type])).toEqual([
      [1, WireType.Varint],
      [2, WireType.Fixed32],
      [3, WireType.Bytes],
      [4, WireType.Varint],
    ]);
    expect(read[0]!.value).toBe(2n ** 64n - 2n);
    expect(readFields(read[2]!.value as Uint8Array)).toEqual(readFields(inner));
    expect(writeFields(read)).toEqual(bytes);
  });

  it('refuses a truncated message', () => {
    const bytes = writeFields([stringField(1, 'a longer string')]);
    expect(() => readFields(bytes.subarray(0, bytes.length - 3))).toThrow(/truncated/);
  });
});

/** A float tensor as a Constant node's TensorProto. */
const tensor = (dims: number[], values: number[]) =>
  writeFields([...dims.map((d) => varintField(1, d)), varintField(2, 1), bytesField(9, new Uint8Array(Float32Array.from(values).buffer))]);

const constant = (name: string, dims: number[], values: number[]) =>
  onnxNode('Constant', [], [name], [writeFields([stringField(1, 'value'), bytesField(5, tensor(dims, values)), varintField(20, 4)])]);

function onnxNode(op: string, inputs: string[], outputs: string[], attributes: Uint8Array[] = []): Field {
  return bytesField(1, writeFields([...inputs.map((i) => stringField(1, i)), ...outputs.map((o) => stringField(2, o)), stringField(4, op), ...attributes.map((a) => bytesField(5, a))]));
}

const floatAttributeBytes = (name: string, value: number) => writeFields([stringField(1, name), floatField(2, value), varintField(20, 1)]);
const intsAttributeBytes = (name: string, values: number[]) => writeFields([stringField(1, name), ...values.map((v) => varintField(8, v)), varintField(20, 7)]);

/** A float tensor input or output of rank 4 with dynamic dimensions. */
const valueInfo = (number: number, name: string) =>
  bytesField(number, writeFields([stringField(1, name), bytesField(2, writeFields([bytesField(1, writeFields([varintField(1, 1), bytesField(2, writeFields([1, 2, 3, 4].map(() => bytesField(1, writeFields([stringField(2, 'd')])))))]))]))]));

/**
 * Paddle's exported block, small: conv → scalar affine → hard-swish spelt out → scalar affine →
 * a padded 3×3 conv → scalar affine → hard-swish → scalar affine → a 1×1 conv.
 */
function exportedBlock(): Uint8Array {
  const random = (n: number, seed: number) => Array.from({ length: n }, (_, i) => Math.sin(seed * 97 + i * 13.1) * 0.8);
  const nodes: Field[] = [
    constant('w1', [4, 3, 3, 3], random(108, 1)),
    constant('b1', [4], random(4, 2)),
    constant('w2', [4, 1, 3, 3], random(36, 3)),
    constant('w3', [2, 4, 1, 1], random(8, 4)),
    constant('b3', [2], random(2, 5)),
    ...[0.7, -0.2, 3, 6, 1.3, 0.4].map((v, i) => constant(`k${i}`, i === 2 || i === 3 ? [] : [1], [v])),
    onnxNode('Conv', ['x', 'w1', 'b1'], ['c1'], [intsAttributeBytes('pads', [1, 1, 1, 1])]),
  ];
  const activation = (from: string, tag: string) => [
    onnxNode('Mul', ['k0', from], [`${tag}m`]),
    onnxNode('Add', [`${tag}m`, 'k1'], [`${tag}a`]),
    onnxNode('Add', [`${tag}a`, 'k2'], [`${tag}p3`]),
    onnxNode('Clip', [`${tag}p3`], [`${tag}clip`], [floatAttributeBytes('min', 0), floatAttributeBytes('max', 6)]),
    onnxNode('Mul', [`${tag}a`, `${tag}clip`], [`${tag}prod`]),
    onnxNode('Div', [`${tag}prod`, 'k3'], [`${tag}hs`]),
    onnxNode('Mul', ['k4', `${tag}hs`], [`${tag}lm`]),
    onnxNode('Add', [`${tag}lm`, 'k5'], [`${tag}out`]),
  ];
  nodes.push(...activation('c1', 'a'));
  nodes.push(onnxNode('Conv', ['aout', 'w2'], ['c2'], [intsAttributeBytes('pads', [1, 1, 1, 1]), writeFields([stringField(1, 'group'), varintField(3, 4), varintField(20, 2)])]));
  nodes.push(...activation('c2', 'b'));
  nodes.push(onnxNode('Conv', ['bout', 'w3', 'b3'], ['y']));
  const graph = writeFields([...nodes, stringField(2, 'block'), valueInfo(11, 'x'), valueInfo(12, 'y')]);
  return writeFields([varintField(1, 7), bytesField(8, writeFields([stringField(1, ''), varintField(2, 9)])), bytesField(7, graph)]);
}

const options = { intraOpNumThreads: 1, graphOptimizationLevel: 'disabled' } as const;

async function run(model: Uint8Array, input: Float32Array, dims: number[]): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(model, options);
  try {
    const output = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', input, dims) });
    return output[session.outputNames[0]!]!.data as Float32Array;
  } finally {
    await session.release();
  }
}

const maxDifference = (a: Float32Array, b: Float32Array) => a.reduce((max, v, i) => Math.max(max, Math.abs(v - b[i]!)), 0);
const opTypes = (model: Uint8Array) => OnnxGraph.parse(model).nodes.map((node) => node.opType).filter((op) => op !== 'Constant');

describe('simplifying an exported graph', () => {
  it('folds the affines into the convolutions and writes hard-swish as x · HardSigmoid(x), computing the same', async () => {
    const model = exportedBlock();
    const simplified = simplifyModel(model);
    expect(opTypes(model)).toHaveLength(19);
    // The padded 3×3 conv keeps its input shift as one Add, so its border still reads zeros.
    expect(opTypes(simplified.model)).toEqual(['Conv', 'HardSigmoid', 'Mul', 'Add', 'Conv', 'HardSigmoid', 'Mul', 'Conv']);
    const input = Float32Array.from({ length: 3 * 7 * 9 }, (_, i) => Math.cos(i * 0.37) * 4);
    const [before, after] = await Promise.all([run(model, input, [1, 3, 7, 9]), run(simplified.model, input, [1, 3, 7, 9])]);
    expect(after).toHaveLength(2 * 7 * 9);
    expect(maxDifference(before, after)).toBeLessThan(1e-5);
  });

  it('leaves a graph without the pattern as it was', async () => {
    const model = exportedBlock();
    const once = simplifyModel(model).model;
    const twice = simplifyModel(once);
    expect(twice.removed).toBe(0);
    expect(opTypes(twice.model)).toEqual(opTypes(once));
  });

  it('keeps PP-OCR’s packaged models computing what they did, with far fewer operations', async () => {
    const files = packagedModelFiles();
    const cases = [
      { path: files.recogniser, dims: [1, 3, 48, 320], removedAtLeast: 250 },
      { path: files.classifier, dims: [1, 3, 48, 192], removedAtLeast: 60 },
      { path: files.detector, dims: [1, 3, 96, 128], removedAtLeast: 250 },
    ];
    for (const { path, dims, removedAtLeast } of cases) {
      const model = await readFile(path);
      const simplified = simplifyModel(model);
      expect(simplified.removed).toBeGreaterThanOrEqual(removedAtLeast);
      expect(opTypes(simplified.model)).not.toContain('Clip');
      const input = Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i * 0.01));
      const [before, after] = await Promise.all([run(model, input, dims), run(simplified.model, input, dims)]);
      expect(maxDifference(before, after)).toBeLessThan(1e-4);
    }
  }, 60_000);
});

describe('the recogniser’s best path', () => {
  it('answers, per time step, the class greedy decoding picks from the full scores and its probability', async () => {
    const model = await readFile(packagedModelFiles().recogniser);
    const session = await ort.InferenceSession.create(withBestPath(model), options);
    try {
      const input = new ort.Tensor('float32', Float32Array.from({ length: 2 * 3 * 48 * 160 }, (_, i) => Math.sin(i * 0.003)), [2, 3, 48, 160]);
      const output = await session.run({ [session.inputNames[0]!]: input });
      const scores = output[session.outputNames[0]!]!;
      const [lines = 0, steps = 0, classes = 0] = scores.dims;
      const best = output[BEST_CLASS]!.data as BigInt64Array;
      const probability = output[BEST_PROBABILITY]!.data as Float32Array;
      expect(output[BEST_CLASS]!.dims).toEqual([lines, steps]);
      for (let row = 0; row < lines * steps; row++) {
        const rowScores = (scores.data as Float32Array).subarray(row * classes, (row + 1) * classes);
        const max = Math.max(...rowScores);
        expect(Number(best[row])).toBe(rowScores.indexOf(max));
        expect(probability[row]).toBe(max);
      }
    } finally {
      await session.release();
    }
  });

  it('is refused for a model with other than one output', () => {
    const graph = OnnxGraph.parse(exportedBlock());
    graph.addOutput('c1', 1);
    expect(() => withBestPath(graph.serialize())).toThrow(/one output, this model has 2/);
  });
});

describe('quantizing the dense convolutions', () => {
  /** Each dense convolution's input and output range, measured on `input` in float. */
  async function rangesOn(model: Uint8Array, input: Float32Array, dims: number[]): Promise<Calibration> {
    const names = tensorsToCalibrate(model);
    const session = await ort.InferenceSession.create(withOutputs(model, names), options);
    try {
      const output = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', input, dims) });
      const ranges = Object.fromEntries(names.map((name) => [name, [Math.min(...(output[name]!.data as Float32Array)), Math.max(...(output[name]!.data as Float32Array))] as const]));
      return { ranges, keepFloat: [] };
    } finally {
      await session.release();
    }
  }

  it('runs the one-group convolutions in integers, keeps depthwise ones in float, and computes nearly the same', async () => {
    const model = simplifyModel(exportedBlock()).model;
    const dims = [1, 3, 7, 9];
    const input = Float32Array.from({ length: 3 * 7 * 9 }, (_, i) => Math.cos(i * 0.37) * 4);
    const quantized = quantizeConvolutions(model, await rangesOn(model, input, dims), 127);
    expect(opTypes(quantized).filter((op) => op.includes('Conv'))).toEqual(['QLinearConv', 'Conv', 'QLinearConv']);
    expect(OnnxGraph.parse(quantized).opsetVersion).toBe(10);
    const [before, after] = await Promise.all([run(model, input, dims), run(quantized, input, dims)]);
    const range = Math.max(...before) - Math.min(...before);
    expect(maxDifference(before, after)).toBeLessThan(0.03 * range);
    expect(maxDifference(before, after)).toBeGreaterThan(0);
  });

  it('leaves in float the convolutions the calibration keeps there, and refuses a calibration made for another model', async () => {
    const model = simplifyModel(exportedBlock()).model;
    const dims = [1, 3, 7, 9];
    const calibration = await rangesOn(model, Float32Array.from({ length: 3 * 7 * 9 }, (_, i) => Math.sin(i)), dims);
    const first = denseConvolutions(OnnxGraph.parse(model))[0]!.outputs[0]!;
    expect(opTypes(quantizeConvolutions(model, { ...calibration, keepFloat: [first] }, 63)).filter((op) => op.includes('Conv'))).toEqual(['Conv', 'Conv', 'QLinearConv']);
    expect(() => quantizeConvolutions(model, { ranges: { elsewhere: [0, 1] }, keepFloat: [] }, 127)).toThrow(/does not match this model/);
  });

  it('has a calibration for the packaged recogniser that names its tensors as simplifying names them', async () => {
    const path = packagedModelFiles().recogniser;
    expect(RECOGNISER_CALIBRATION.modelSha256).toBe(await sha256OfFile(path));
    const needed = tensorsToCalibrate(simplifyModel(await readFile(path)).model);
    expect(Object.keys(RECOGNISER_CALIBRATION.ranges).sort()).toEqual([...needed].sort());
    expect(calibrationFor('0'.repeat(64))).toBeUndefined();
  });

  it('reads real lines with the packaged recogniser in int8 as it reads them in float', async () => {
    const path = packagedModelFiles().recogniser;
    const simplified = simplifyModel(await readFile(path)).model;
    const calibration = calibrationFor(await sha256OfFile(path))!;
    const quantized = quantizeConvolutions(simplified, calibration, exactInt8DotProducts() ? 127 : 63);
    // Raised to operator set 10, its Slices take inputs; it reads lines like the float one.
    expect(OnnxGraph.parse(quantized).opsetVersion).toBe(10);
    const greedy = async (model: Uint8Array, image: string) => {
      const session = await ort.InferenceSession.create(withBestPath(model), options);
      try {
        const { data, info } = await sharp(fixturePath('photos', image)).removeAlpha().resize({ height: 48 }).raw().toBuffer({ resolveWithObject: true });
        const plane = 48 * info.width;
        const input = new Float32Array(3 * plane);
        for (let i = 0; i < plane; i++) for (let c = 0; c < 3; c++) input[c * plane + i] = data[i * 3 + 2 - c]! / 127.5 - 1;
        const output = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', input, [1, 3, 48, info.width]) }, [BEST_CLASS]);
        return [...(output[BEST_CLASS]!.data as BigInt64Array)].filter((c, t, all) => c !== 0n && c !== all[t - 1]);
      } finally {
        await session.release();
      }
    };
    for (const image of ['rapidocr_text_rec.jpg', 'rapidocr_test_without_det.jpg']) {
      const read = await greedy(simplified, image);
      expect(read.length).toBeGreaterThanOrEqual(4);
      expect(await greedy(quantized, image)).toEqual(read);
    }
  }, 60_000);
});
