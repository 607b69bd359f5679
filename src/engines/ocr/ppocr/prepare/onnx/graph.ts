/**
 * An ONNX model as a list of nodes that can be rewritten and written back: the graph's nodes are
 * parsed (inputs, outputs, operator and the rest of their fields kept as they came), and float
 * tensors held in Constant nodes can be read and replaced. Everything else in the model is
 * carried through byte for byte.
 */
import { asBytes, asFloat, asInteger, asString, bytesField, floatField, readFields, stringField, varintField, WireType, writeFields, type Field } from './wire.js';

/** Field numbers of onnx.proto. */
const MODEL_GRAPH = 7;
const MODEL_OPSET_IMPORT = 8;
const OPSET_DOMAIN = 1;
const OPSET_VERSION = 2;
const GRAPH_NODE = 1;
const GRAPH_OUTPUT = 12;
const VALUE_INFO_NAME = 1;
const VALUE_INFO_TYPE = 2;
const TYPE_TENSOR = 1;
const TENSOR_TYPE_ELEM_TYPE = 1;
const NODE_INPUT = 1;
const NODE_OUTPUT = 2;
const NODE_NAME = 3;
const NODE_OP_TYPE = 4;
const NODE_ATTRIBUTE = 5;
const ATTRIBUTE_NAME = 1;
const ATTRIBUTE_FLOAT = 2;
const ATTRIBUTE_INT = 3;
const ATTRIBUTE_STRING = 4;
const ATTRIBUTE_TENSOR = 5;
const ATTRIBUTE_INTS = 8;
const ATTRIBUTE_TYPE = 20;
const TENSOR_DIMS = 1;
const TENSOR_DATA_TYPE = 2;
const TENSOR_FLOAT_DATA = 4;
const TENSOR_RAW_DATA = 9;
const ATTRIBUTE_TYPE_FLOAT = 1;
const ATTRIBUTE_TYPE_INT = 2;
const ATTRIBUTE_TYPE_INTS = 7;
const ATTRIBUTE_TYPE_TENSOR = 4;
export const TENSOR_TYPE_FLOAT = 1;
export const TENSOR_TYPE_UINT8 = 2;
export const TENSOR_TYPE_INT8 = 3;
export const TENSOR_TYPE_INT32 = 6;
export const TENSOR_TYPE_INT64 = 7;

/** A constant of any element type, its values as little-endian bytes. */
export interface RawTensor {
  dims: number[];
  elementType: number;
  raw: Uint8Array;
}

export interface OnnxNode {
  opType: string;
  inputs: string[];
  outputs: string[];
  /** The node's other fields (name, attributes, domain, doc string), as they came. */
  rest: Field[];
}

export interface FloatTensor {
  dims: number[];
  values: Float32Array;
}

export const numel = (dims: readonly number[]) => dims.reduce((product, d) => product * d, 1);

export class OnnxGraph {
  private constructor(
    private modelFields: Field[],
    private graphFields: Field[],
    public nodes: OnnxNode[],
  ) {}

  static parse(bytes: Uint8Array): OnnxGraph {
    const modelFields = readFields(bytes);
    const graph = modelFields.find((f) => f.number === MODEL_GRAPH);
    if (!graph) throw new Error('not an ONNX model: it has no graph');
    const graphFields = readFields(asBytes(graph));
    const nodes = graphFields.filter((f) => f.number === GRAPH_NODE).map((f) => parseNode(asBytes(f)));
    return new OnnxGraph(modelFields, graphFields, nodes);
  }

  /** The version of the default (ONNX) operator set the model imports. */
  get opsetVersion(): number {
    const opset = this.modelFields.find(importsDefaultOpset);
    const version = opset && readFields(asBytes(opset)).find((f) => f.number === OPSET_VERSION);
    return version ? Number(asInteger(version)) : 1;
  }

  /** Imports version `version` of the default operator set instead (the caller makes the nodes fit it). */
  setOpsetVersion(version: number): void {
    const opset = bytesField(MODEL_OPSET_IMPORT, writeFields([stringField(OPSET_DOMAIN, ''), varintField(OPSET_VERSION, version)]));
    // Protocol Buffers fields may come in any order.
    this.modelFields = [...this.modelFields.filter((f) => !importsDefaultOpset(f)), opset];
  }

  /** The names of the graph's outputs, in order. */
  get outputs(): string[] {
    return this.graphFields
      .filter((f) => f.number === GRAPH_OUTPUT)
      .map((f) => asString(readFields(asBytes(f)).find((g) => g.number === VALUE_INFO_NAME) ?? stringField(VALUE_INFO_NAME, '')));
  }

  /** Makes `name` an output of the graph too, a tensor of `elementType` (TENSOR_TYPE_*). */
  addOutput(name: string, elementType: number): void {
    const type = writeFields([bytesField(TYPE_TENSOR, writeFields([varintField(TENSOR_TYPE_ELEM_TYPE, elementType)]))]);
    this.graphFields = [...this.graphFields, bytesField(GRAPH_OUTPUT, writeFields([stringField(VALUE_INFO_NAME, name), bytesField(VALUE_INFO_TYPE, type)]))];
  }

  serialize(): Uint8Array {
    const graph = [...this.nodes.map((node) => bytesField(GRAPH_NODE, writeNode(node))), ...this.graphFields.filter((f) => f.number !== GRAPH_NODE)];
    return writeFields(this.modelFields.map((f) => (f.number === MODEL_GRAPH ? bytesField(MODEL_GRAPH, writeFields(graph)) : f)));
  }

  producer(name: string): OnnxNode | undefined {
    return this.nodes.find((node) => node.outputs.includes(name));
  }

  /** The one node that reads `name`, when exactly one does and it is not a graph output. */
  soleConsumer(name: string): OnnxNode | undefined {
    if (this.outputs.includes(name)) return undefined;
    const readers = this.nodes.filter((node) => node.inputs.includes(name));
    return readers.length === 1 ? readers[0] : undefined;
  }

  /** The float tensor a Constant node holds under `name`. */
  floatConstant(name: string): FloatTensor | undefined {
    const node = this.producer(name);
    if (node?.opType !== 'Constant') return undefined;
    const value = attribute(node, 'value');
    const tensor = value?.find((f) => f.number === ATTRIBUTE_TENSOR);
    return tensor ? readFloatTensor(readFields(asBytes(tensor))) : undefined;
  }

  /** Puts `tensor` in the Constant node that makes `name` (a new one is placed first). */
  setFloatConstant(name: string, tensor: FloatTensor): void {
    const node = constantNode(name, tensor);
    const index = this.nodes.findIndex((n) => n.outputs.includes(name));
    if (index >= 0) this.nodes[index] = node;
    else this.nodes.unshift(node);
  }

  /** Puts `tensor`, of any element type, in a new Constant node placed first. */
  addConstant(name: string, tensor: RawTensor): void {
    this.nodes.unshift(rawConstantNode(name, tensor));
  }

  remove(...nodes: OnnxNode[]): void {
    const gone = new Set(nodes);
    this.nodes = this.nodes.filter((node) => !gone.has(node));
  }

  /** Drops Constant nodes nothing reads any more (the tensors a rewrite replaced). */
  removeUnusedConstants(): void {
    const read = new Set([...this.outputs, ...this.nodes.flatMap((node) => node.inputs)]);
    this.nodes = this.nodes.filter((node) => node.opType !== 'Constant' || node.outputs.some((name) => read.has(name)));
  }

  /** Places `node` where `before` stands, `before` moving after it. */
  insertBefore(before: OnnxNode, node: OnnxNode): void {
    this.nodes.splice(this.nodes.indexOf(before), 0, node);
  }

  /** A name no value of the graph has yet. */
  freshName(base: string): string {
    // A scan per candidate, not a set of every name per call: rewrites ask for hundreds of names.
    const taken = (name: string) => this.nodes.some((node) => node.outputs.includes(name));
    let i = 0;
    while (taken(`${base}.${i}`)) i++;
    return `${base}.${i}`;
  }
}

/** Whether a model field is the import of the default (ONNX, empty-domain) operator set. */
function importsDefaultOpset(field: Field): boolean {
  if (field.number !== MODEL_OPSET_IMPORT) return false;
  const domain = readFields(asBytes(field)).find((f) => f.number === OPSET_DOMAIN);
  return domain === undefined || asString(domain) === '';
}

function parseNode(bytes: Uint8Array): OnnxNode {
  const fields = readFields(bytes);
  return {
    opType: asString(fields.find((f) => f.number === NODE_OP_TYPE) ?? stringField(NODE_OP_TYPE, '')),
    inputs: fields.filter((f) => f.number === NODE_INPUT).map(asString),
    outputs: fields.filter((f) => f.number === NODE_OUTPUT).map(asString),
    rest: fields.filter((f) => f.number !== NODE_INPUT && f.number !== NODE_OUTPUT && f.number !== NODE_OP_TYPE),
  };
}

function writeNode(node: OnnxNode): Uint8Array {
  return writeFields([
    ...node.inputs.map((name) => stringField(NODE_INPUT, name)),
    ...node.outputs.map((name) => stringField(NODE_OUTPUT, name)),
    stringField(NODE_OP_TYPE, node.opType),
    ...node.rest,
  ]);
}

/** The fields of the node's attribute called `name`. */
export function attribute(node: OnnxNode, name: string): Field[] | undefined {
  for (const field of node.rest) {
    if (field.number !== NODE_ATTRIBUTE) continue;
    const fields = readFields(asBytes(field));
    if (fields.some((f) => f.number === ATTRIBUTE_NAME && asString(f) === name)) return fields;
  }
  return undefined;
}

/** The values of a node's attributes, read: undefined where the node has none by that name. */
export const floatAttribute = (node: OnnxNode, name: string): number | undefined => {
  const value = attribute(node, name)?.find((f) => f.number === ATTRIBUTE_FLOAT);
  return value ? asFloat(value) : undefined;
};

export const stringAttribute = (node: OnnxNode, name: string): string | undefined => {
  const value = attribute(node, name)?.find((f) => f.number === ATTRIBUTE_STRING);
  return value ? asString(value) : undefined;
};

export const intAttribute = (node: OnnxNode, name: string): number | undefined => {
  const value = attribute(node, name)?.find((f) => f.number === ATTRIBUTE_INT);
  return value ? signedInteger(value) : undefined;
};

/** An ints attribute (packed or not), or undefined. */
export function intsAttribute(node: OnnxNode, name: string): number[] | undefined {
  const fields = attribute(node, name)?.filter((f) => f.number === ATTRIBUTE_INTS);
  return fields ? fields.flatMap(integers) : undefined;
}

export function node(opType: string, inputs: string[], outputs: string[], attributes: Field[] = []): OnnxNode {
  return { opType, inputs, outputs, rest: [stringField(NODE_NAME, outputs[0]!), ...attributes] };
}

/** A node's attributes, written: fields to give node() among its attributes. */
const attributeField = (name: string, type: number, value: Field[]) => bytesField(NODE_ATTRIBUTE, writeFields([stringField(ATTRIBUTE_NAME, name), ...value, varintField(ATTRIBUTE_TYPE, type)]));
export const floatAttributeField = (name: string, value: number) => attributeField(name, ATTRIBUTE_TYPE_FLOAT, [floatField(ATTRIBUTE_FLOAT, value)]);
export const intAttributeField = (name: string, value: number) => attributeField(name, ATTRIBUTE_TYPE_INT, [varintField(ATTRIBUTE_INT, value)]);
export const intsAttributeField = (name: string, values: number[]) => attributeField(name, ATTRIBUTE_TYPE_INTS, values.map((v) => varintField(ATTRIBUTE_INTS, v)));

function constantNode(name: string, tensor: FloatTensor): OnnxNode {
  const raw = new Uint8Array(tensor.values.buffer.slice(tensor.values.byteOffset, tensor.values.byteOffset + tensor.values.byteLength));
  return rawConstantNode(name, { dims: tensor.dims, elementType: TENSOR_TYPE_FLOAT, raw });
}

function rawConstantNode(name: string, { dims, elementType, raw }: RawTensor): OnnxNode {
  const tensorBytes = writeFields([...dims.map((d) => varintField(TENSOR_DIMS, d)), varintField(TENSOR_DATA_TYPE, elementType), bytesField(TENSOR_RAW_DATA, raw)]);
  const value = writeFields([stringField(ATTRIBUTE_NAME, 'value'), bytesField(ATTRIBUTE_TENSOR, tensorBytes), varintField(ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_TENSOR)]);
  return { opType: 'Constant', inputs: [], outputs: [name], rest: [stringField(NODE_NAME, name), bytesField(NODE_ATTRIBUTE, value)] };
}

/** A repeated int64 field's values, packed or one per field. */
function integers(field: Field): number[] {
  if (field.type === WireType.Varint) return [signedInteger(field)];
  return readFields(prefixEach(asBytes(field))).map(signedInteger);
}

/** An int64 varint's value: negative ones are written as their 64-bit two's complement. */
const signedInteger = (field: Field) => Number(BigInt.asIntN(64, asInteger(field)));

/** Packed varints, each given a field key, so the field reader can walk them. */
function prefixEach(packed: Uint8Array): Uint8Array {
  const out: number[] = [];
  let start = true;
  for (const byte of packed) {
    if (start) out.push(0x08);
    out.push(byte);
    start = (byte & 0x80) === 0;
  }
  return Uint8Array.from(out);
}

function readFloatTensor(fields: Field[]): FloatTensor | undefined {
  const type = fields.find((f) => f.number === TENSOR_DATA_TYPE);
  if (!type || Number(asInteger(type)) !== TENSOR_TYPE_FLOAT) return undefined;
  const dims = fields.filter((f) => f.number === TENSOR_DIMS).flatMap(integers);
  const raw = fields.find((f) => f.number === TENSOR_RAW_DATA);
  const bytes = raw
    ? asBytes(raw)
    : Buffer.concat(fields.filter((f) => f.number === TENSOR_FLOAT_DATA).map(asBytes));
  const values = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(values.buffer).set(bytes);
  return values.length === numel(dims) ? { dims, values } : undefined;
}
